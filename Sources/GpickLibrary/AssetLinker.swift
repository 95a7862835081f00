import GRDB

/// What needs more than one file: Apple live pairs, RAW+JPEG pairs and bursts. Run after every scan that
/// changed rows, over the whole index (a pair's halves may arrive in different scans).
enum AssetLinker {
    static func link(_ db: Database) throws {
        // Start from what each file says by itself: only a Motion Photo is live alone.
        try db.execute(sql: """
            UPDATE asset SET companionOf = NULL, pairedMovie = NULL, pairedRaw = NULL, live = (motionKind IS NOT NULL), burst = 0,
                burstLead = 0
            WHERE companionOf IS NOT NULL OR pairedMovie IS NOT NULL OR pairedRaw IS NOT NULL OR burst OR burstLead
                OR live != (motionKind IS NOT NULL)
            """)
        // Apple pairs: the photo's MakerNote ContentIdentifier equals the movie's QuickTime
        // content.identifier, in the same library root. Never by name: IMG_1234.JPG and
        // IMG_1234_3.MOV, or names rolled over, say nothing. The movie becomes the photo's part.
        try db.execute(sql: """
            UPDATE asset AS v SET companionOf = (
                SELECT MIN(p.id) FROM asset p
                WHERE p.kind = 'photo' AND p.root = v.root AND p.contentIdentifier = v.contentIdentifier)
            WHERE v.kind = 'video' AND v.contentIdentifier IS NOT NULL
            """)
        try db.execute(sql: """
            UPDATE asset AS p SET live = 1, pairedMovie = (
                SELECT v.path FROM asset v
                WHERE v.kind = 'video' AND v.root = p.root AND v.contentIdentifier = p.contentIdentifier
                ORDER BY v.id LIMIT 1)
            WHERE p.kind = 'photo' AND p.contentIdentifier IS NOT NULL AND EXISTS (
                SELECT 1 FROM asset v
                WHERE v.kind = 'video' AND v.root = p.root AND v.contentIdentifier = p.contentIdentifier)
            """)
        // RAW+JPEG: a camera's RAW file and the JPEG (or HEIF) it wrote of the same shot, same
        // name in the same folder, are one asset, shown by the JPEG, as an Apple pair is by its
        // photo. A RAW file alone stays an asset, shown by its preview.
        try db.execute(sql: """
            UPDATE asset AS r SET companionOf = (
                SELECT MIN(p.id) FROM asset p
                WHERE p.pairKey = r.pairKey AND p.id != r.id AND p.unreadable IS NULL
                    AND p.mimeType IN ('image/jpeg', 'image/heic', 'image/avif', 'image/jxl'))
            WHERE r.pairKey IS NOT NULL AND r.mimeType LIKE 'image/x-%' AND r.unreadable IS NULL
            """)
        // Only the photos a RAW file points at: companionOf has no index, and a subquery per
        // photo would read the whole table for each (a 10,000-file scan took 30 times longer).
        try db.execute(sql: """
            UPDATE asset AS p SET pairedRaw = (
                SELECT r.path FROM asset r WHERE r.companionOf = p.id AND r.mimeType LIKE 'image/x-%' ORDER BY r.id LIMIT 1)
            WHERE p.id IN (SELECT companionOf FROM asset WHERE companionOf IS NOT NULL AND mimeType LIKE 'image/x-%')
                AND p.mimeType NOT LIKE 'image/x-%'
            """)
        // Bursts: Apple's BurstUUID, or gpick's numbered names taken together (members written
        // within about 2 s each, so that a folder of renamed holiday-001.jpg… is not one).
        try db.execute(sql: """
            UPDATE asset SET burst = 1 WHERE burstKey IN (
                SELECT burstKey FROM asset WHERE burstKey IS NOT NULL AND companionOf IS NULL
                GROUP BY burstKey
                HAVING COUNT(*) >= 2 AND (burstKey LIKE 'apple:%' OR MAX(mtimeNs) - MIN(mtimeNs) <= COUNT(*) * 2000000000))
            """)
        try db.execute(sql: """
            UPDATE asset SET burstLead = 1 WHERE burst AND path = (
                SELECT MIN(b.path) FROM asset b WHERE b.burstKey = asset.burstKey AND b.burst)
            """)
    }
}
