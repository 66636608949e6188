print("imagekernel")
