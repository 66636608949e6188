import Foundation
import ImageKernel
import CacheDisk
import CacheRedis
import CoderBMP
import CoderHEIF
import CoderGIF
import CoderSVG
import CoderTIFF
import CoderJXL
import CoderJPEG
import CoderPNG
import CoderWebP
import ColorLCMS
import LoaderFile
import LoaderHTTP
import LoaderS3

/// The parts the command-line tool links, registered in one place.
enum Plugins {
    static func coders() -> CoderRegistry {
        CoderRegistry([PNGCoder(), JPEGCoder(), HEIFCoder(), WebPCoder(), GIFCoder(), BMPCoder(pngCoder: PNGCoder()), TIFFCoder(), JXLCoder(), SVGCoder()])
    }

    /// Files and paths, http(s) through libcurl with `maxConcurrentDownloads` transfers at
    /// once, at most `perHost` of them to one host, and `s3://bucket/key` with the endpoint,
    /// region and credentials the AWS SDKs read from the environment (`AWS_ENDPOINT_URL_S3`,
    /// `AWS_REGION`, `AWS_ACCESS_KEY_ID`, `AWS_PROFILE`, …; credentials are looked up on the first
    /// `s3://` load only).
    /// `adaptive` false leaves pacing to the caller (a queue worker paces through Redis instead).
    static func loaders(maxConcurrentDownloads: Int = 6, perHost: Int? = nil, adaptive: Bool = true) throws -> LoaderRegistry {
        var http = HTTPLoader.Configuration()
        http.adaptsPerHostRate = adaptive
        http.maxConcurrentDownloads = maxConcurrentDownloads
        http.maxConcurrentDownloadsPerHost = perHost
        var s3 = S3Loader.Configuration()
        s3.http.maxConcurrentDownloads = maxConcurrentDownloads
        return LoaderRegistry([FileLoader(), try HTTPLoader(configuration: http), try S3Loader(configuration: s3)])
    }

    /// The disk cache in `directory` (default `$XDG_CACHE_HOME/imagekernel`, else `~/.cache/imagekernel`).
    /// `indexed` false keeps no in-memory index (memory flat however many entries a prefetch writes).
    static func diskCache(directory: String?, maxAge: Double? = nil, maxSize: Int? = nil, indexed: Bool = true) -> DiskCache {
        var configuration = DiskCache.Configuration(
            directory: directory.map { URL(fileURLWithPath: $0) } ?? DiskCache.Configuration.defaultDirectory)
        if !indexed { configuration.maxIndexedEntries = 0 }
        if let maxAge { configuration.maxAge = maxAge }
        if let maxSize { configuration.maxSize = maxSize }
        return DiskCache(configuration: configuration)
    }

    /// The cache for `fetch`/`prefetch`: memory in front of the disk cache, then the shared
    /// Redis tier at `sharedCache` (`redis://…`, or a cluster `redis+cluster://…`) when given, each network wait bounded by `sharedCacheTimeout`.
    static func cache(
        directory: String?, sharedCache: String? = nil, sharedCacheTimeout: Duration = .milliseconds(50), indexed: Bool = true
    ) throws -> any ImageCache {
        let shared = try sharedCache.map { (url) throws(ImageKernelError) in
            var configuration = try RedisCache.Configuration(url: url)
            configuration.timeout = sharedCacheTimeout
            return RedisCache(configuration: configuration)
        }
        return TieredCache(memory: MemoryCache(), backing: diskCache(directory: directory, indexed: indexed), lowerTiers: shared.map { [$0] } ?? [])
    }

    /// Lets background cache work (index, trimming) finish before the process exits.
    static func finish(_ manager: ImageManager) {
        ((manager.cache as? TieredCache)?.backing as? DiskCache)?.waitUntilIdle()
    }

    /// The colour-management plugin (lcms2), one for the process: it caches its transforms.
    static let colorConverter = LCMSColorConverter()

    /// A manager over `cache` (memory only by default: `info` and `convert` never touch the disk cache).
    /// `colorManaged` registers the lcms2 converter: CMYK files with a profile become RGB through
    /// it, and `conversion` (`--to-srgb`) converts every result. `info` leaves it out: it hashes
    /// the decoder's own pixels, as the reference tables do (no colour management).
    static func manager(
        cache: any ImageCache = MemoryCache(), concurrency: Int = 6, perHost: Int? = nil, adaptive: Bool = true,
        colorManaged: Bool = true, conversion: ColorConversion? = nil
    ) throws -> ImageManager {
        ImageManager(configuration: .init(
            cache: cache, loaders: try loaders(maxConcurrentDownloads: concurrency, perHost: perHost, adaptive: adaptive), coders: coders(),
            colorConverter: colorManaged ? colorConverter : nil, colorConversion: conversion))
    }
}
