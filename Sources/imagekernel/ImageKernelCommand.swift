import ArgumentParser

@main
struct ImageKernelCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "imagekernel",
        abstract: "Load, decode, inspect, convert and cache images with ImageKernel.",
        subcommands: [InfoCommand.self, FetchCommand.self, PrefetchCommand.self, ConvertCommand.self, CacheCommand.self, BenchCommand.self, QueueCommand.self]
    )
}
