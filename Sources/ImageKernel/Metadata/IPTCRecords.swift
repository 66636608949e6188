/// IPTC-IIM records, as Photoshop's image resource 0x0404 holds them: each a tag marker
/// `0x1C`, a record number, a dataset number, a length (two bytes, or with the top bit set
/// the count of the length bytes that follow) and the value.
enum IPTCRecords {
    /// A dataset, as record and dataset numbers (`2:116` is record 2, dataset 116).
    struct DataSet: Hashable {
        var record: UInt8
        var dataset: UInt8
    }

    /// What ``MetadataPolicy/copyright`` keeps: 2:116 copyright notice and 2:80 by-line, with
    /// the records that say how to read them (1:90 coded character set, 2:0 record version).
    static let copyrightDataSets: Set<DataSet> = [
        DataSet(record: 2, dataset: 116), DataSet(record: 2, dataset: 80),
        DataSet(record: 1, dataset: 90), DataSet(record: 2, dataset: 0),
    ]
    /// Datasets kept only alongside others.
    static let framing: Set<DataSet> = [DataSet(record: 1, dataset: 90), DataSet(record: 2, dataset: 0)]

    /// The records in `keeping` (all when nil), in their order; nil when the data is malformed
    /// (a record running past the end, a length field longer than 4 bytes, bytes outside a
    /// record) or nothing but framing is left.
    static func filtered(_ data: [UInt8], keeping: Set<DataSet>?) -> [UInt8]? {
        var out: [UInt8] = []
        var substantive = false
        var offset = 0
        while offset < data.count {
            guard data[offset] == 0x1C, offset + 5 <= data.count else {
                // Photoshop pads the resource with zeros.
                if data[offset...].allSatisfy({ $0 == 0 }) { break }
                return nil
            }
            let set = DataSet(record: data[offset + 1], dataset: data[offset + 2])
            var length = Int(data[offset + 3]) << 8 | Int(data[offset + 4])
            var valueStart = offset + 5
            if length & 0x8000 != 0 {
                let lengthBytes = length & 0x7FFF
                guard (1...4).contains(lengthBytes), valueStart + lengthBytes <= data.count else { return nil }
                length = data[valueStart..<(valueStart + lengthBytes)].reduce(0) { $0 << 8 | Int($1) }
                valueStart += lengthBytes
            }
            guard length <= data.count - valueStart else { return nil }
            let end = valueStart + length
            if keeping?.contains(set) ?? true {
                out += data[offset..<end]
                if !framing.contains(set) { substantive = true }
            }
            offset = end
        }
        return substantive ? out : nil
    }
}
