print("bench-kernel")
