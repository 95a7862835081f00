import GRDB

extension Asset {
    /// A row read by hand, column by column: GRDB's Codable decoding of the same rows took ~7 ms
    /// of the picker's 1000-row query (bench L3, target 10 ms); this is what a listing pays.
    public init(row: Row) throws {
        let kindText: String = row["kind"]
        guard let kind = Kind(rawValue: kindText) else {
            throw DatabaseError(resultCode: .SQLITE_CORRUPT, message: "unknown asset kind \"\(kindText)\"")
        }
        self.init(id: row["id"], path: row["path"], root: row["root"], device: row["device"], inode: row["inode"],
                  size: row["size"], mtimeNs: row["mtimeNs"], kind: kind, mimeType: row["mimeType"], width: row["width"],
                  height: row["height"], orientation: row["orientation"], duration: row["duration"], takenAt: row["takenAt"],
                  addedAt: row["addedAt"], live: row["live"], burst: row["burst"], panorama: row["panorama"],
                  screenshot: row["screenshot"], contentIdentifier: row["contentIdentifier"], pairedMovie: row["pairedMovie"],
                  companionOf: row["companionOf"], motionKind: row["motionKind"], motionVideoOffset: row["motionVideoOffset"],
                  motionVideoLength: row["motionVideoLength"], burstKey: row["burstKey"], burstLead: row["burstLead"],
                  unreadable: row["unreadable"], contentHash: row["contentHash"])
    }
}
