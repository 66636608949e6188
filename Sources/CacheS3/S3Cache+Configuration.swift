import Foundation
import ImageKernel
import LoaderS3

extension S3Cache {
    /// Where and how ``S3Cache`` keeps entries. Fixed when the cache is created.
    public struct Configuration: Sendable {
        /// The bucket (it must exist).
        public var bucket: String
        /// Prepended to every object name (`imagekernel/` by default); ``S3Cache/clear(type:)``
        /// removes only objects under it.
        public var prefix: String
        /// `x-amz-storage-class` for stored objects (`STANDARD`, `STANDARD_IA`, …); nil leaves the
        /// bucket's default.
        public var storageClass: String?
        /// Entries whose `Last-Modified` is older than this are misses (a bucket lifecycle rule
        /// deletes them for good); nil keeps them until removed.
        public var timeToLive: Duration?
        /// The bound on every request: a store slower than this is a miss (queries) or a dropped
        /// write (stores). Default 2 s.
        public var timeout: Duration
        /// Objects larger than this are neither stored nor read (default 64 MiB).
        public var maxObjectSize: Int
        /// Encodes an image-only entry (no bytes) for storing; nil refuses such entries (`unsupported`).
        public var imageEncoder: (@Sendable (Image) throws(ImageKernelError) -> Data)?
        /// The endpoint, region and credentials, read as ``LoaderS3/S3Loader`` reads them
        /// (`AWS_ENDPOINT_URL_S3`, `AWS_REGION`, the credential chain, …) unless set here.
        public var s3: S3Loader.Configuration

        /// A configuration for `bucket`, everything else by default.
        public init(bucket: String, prefix: String = "imagekernel/", s3: S3Loader.Configuration = S3Loader.Configuration()) {
            self.bucket = bucket
            self.prefix = prefix
            self.s3 = s3
            storageClass = nil
            timeToLive = nil
            timeout = .seconds(2)
            maxObjectSize = 64 << 20
            imageEncoder = nil
        }
    }
}
