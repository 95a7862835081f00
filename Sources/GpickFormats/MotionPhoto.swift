import FoundationEssentials
import GpickBase
import Glibc

/// Google's Motion Photo format 1.0: `[JPEG with XMP in APP1][padding][MP4]`. Offsets count back
/// from the end of the file, so the XMP's own size never changes them.
public enum MotionPhoto {
    static let xmpHeader = Array("http://ns.adobe.com/xap/1.0/\0".utf8)

    /// The XMP packet: flags as attributes on the first rdf:Description (media3 ignores child
    /// elements), and exactly two items, Primary then MotionPhoto.
    static func xmp(videoLength: Int, presentationUs: Int64) -> String {
        """
        <?xpacket begin="\u{FEFF}" id="W5M0MpCehiHzreSzNTczkc9d"?>
        <x:xmpmeta xmlns:x="adobe:ns:meta/" x:xmptk="gpick">
         <rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">
          <rdf:Description rdf:about=""
            xmlns:GCamera="http://ns.google.com/photos/1.0/camera/"
            xmlns:Container="http://ns.google.com/photos/1.0/container/"
            xmlns:Item="http://ns.google.com/photos/1.0/container/item/"
            GCamera:MotionPhoto="1"
            GCamera:MotionPhotoVersion="1"
            GCamera:MotionPhotoPresentationTimestampUs="\(presentationUs)"
            GCamera:MicroVideo="1"
            GCamera:MicroVideoVersion="1"
            GCamera:MicroVideoOffset="\(videoLength)"
            GCamera:MicroVideoPresentationTimestampUs="\(presentationUs)">
           <Container:Directory>
            <rdf:Seq>
             <rdf:li rdf:parseType="Resource">
              <Container:Item Item:Mime="image/jpeg" Item:Semantic="Primary" Item:Length="0" Item:Padding="0"/>
             </rdf:li>
             <rdf:li rdf:parseType="Resource">
              <Container:Item Item:Mime="video/mp4" Item:Semantic="MotionPhoto" Item:Length="\(videoLength)" Item:Padding="0"/>
             </rdf:li>
            </rdf:Seq>
           </Container:Directory>
          </rdf:Description>
         </rdf:RDF>
        </x:xmpmeta>
        <?xpacket end="w"?>
        """
    }

    /// The whole file: the JPEG with the XMP APP1 right after SOI (and APP0, which jpegenc writes),
    /// then the MP4 with no padding.
    public static func compose(jpeg: [UInt8], mp4: [UInt8], presentationUs: Int64) throws(GpickError) -> [UInt8] {
        guard jpeg.count > 4, jpeg[0] == 0xFF, jpeg[1] == 0xD8 else { throw GpickError(.runtime, "the still is not a JPEG") }
        var insertAt = 2
        if jpeg[2] == 0xFF, jpeg[3] == 0xE0 {  // APP0 (JFIF) stays first
            insertAt = 4 + (Int(jpeg[4]) << 8 | Int(jpeg[5]))
        }
        let payload = xmpHeader + Array(xmp(videoLength: mp4.count, presentationUs: presentationUs).utf8)
        guard payload.count + 2 <= 65_535 else { throw GpickError(.runtime, "motion photo XMP is too large for one APP1 segment") }
        let length = payload.count + 2
        var out: [UInt8] = []
        out.reserveCapacity(jpeg.count + payload.count + 4 + mp4.count)
        out += jpeg[..<insertAt]
        out += [0xFF, 0xE1, UInt8(length >> 8), UInt8(length & 0xFF)]
        out += payload
        out += jpeg[insertAt...]
        out += mp4
        return out
    }

    /// What a file says about itself, for `gpick inspect`.
    public struct Parsed: Sendable, Codable {
        public var presentationUs: Int64?
        public var videoLength: Int
        public var padding: Int
        public var jpegLength: Int
        /// Problems found (empty when the file is consistent).
        public var problems: [String]
    }

    /// Reads the Motion Photo XMP of a file, if it has one, and checks its layout.
    public static func parse(_ data: [UInt8]) -> Parsed? {
        guard data.count > 4, data[0] == 0xFF, data[1] == 0xD8 else { return nil }
        // Walk the JPEG's marker segments up to the image data, looking for the XMP APP1.
        var i = 2, xmpText: String?, xmpSegmentIndex = 0, segment = 0
        while i + 4 <= data.count, data[i] == 0xFF {
            let marker = data[i + 1]
            if marker == 0xDA || marker == 0xD9 { break }
            let len = Int(data[i + 2]) << 8 | Int(data[i + 3])
            guard len >= 2, i + 2 + len <= data.count else { break }
            if marker == 0xE1 && len - 2 > xmpHeader.count && Array(data[(i + 4)..<(i + 4 + xmpHeader.count)]) == xmpHeader {
                xmpText = String(decoding: data[(i + 4 + xmpHeader.count)..<(i + 2 + len)], as: UTF8.self)
                xmpSegmentIndex = segment
            }
            segment += 1
            i += 2 + len
        }
        guard let xmp = xmpText, xmp.contains("MotionPhoto=\"1\"") || xmp.contains("MicroVideo=\"1\"") else { return nil }
        func attr(_ name: String, after: String.Index? = nil) -> String? {
            guard let r = xmp[(after ?? xmp.startIndex)...].firstRange(of: "\(name)=\""),
                  let end = xmp[r.upperBound...].firstIndex(of: "\"") else { return nil }
            return String(xmp[r.upperBound..<end])
        }
        var problems: [String] = []
        let videoItem = xmp.firstRange(of: "Item:Semantic=\"MotionPhoto\"")
        // The item's attributes may sit before or after Semantic within the same element.
        let itemStart = videoItem.flatMap { r in xmp[..<r.lowerBound].ranges(of: "<Container:Item").last?.lowerBound }
        let length = itemStart.flatMap { attr("Item:Length", after: $0) }.flatMap(Int.init)
            ?? attr("GCamera:MicroVideoOffset").flatMap(Int.init) ?? 0
        let padding = itemStart.flatMap { attr("Item:Padding", after: $0) }.flatMap(Int.init) ?? 0
        if videoItem == nil { problems.append("no MotionPhoto item in the Container directory") }
        if xmpSegmentIndex > 1 { problems.append("the XMP APP1 is not right after SOI/APP0 (readers skip it)") }
        if length <= 0 || length + padding >= data.count { problems.append("video length \(length) does not fit the file") }
        let videoStart = data.count - length
        if length > 8, videoStart >= 0, String(decoding: data[(videoStart + 4)..<(videoStart + 8)], as: UTF8.self) != "ftyp" {
            problems.append("the last \(length) bytes are not an MP4 (no ftyp box)")
        }
        return Parsed(presentationUs: attr("GCamera:MotionPhotoPresentationTimestampUs").flatMap { Int64($0) },
                      videoLength: length, padding: padding, jpegLength: max(0, data.count - length - padding),
                      problems: problems)
    }
}
