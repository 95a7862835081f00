import Foundation
@testable import GpickKit
import GpickBase
import GpickTestSupport
import Testing

/// A camera's controls, read from the six real control tables in `../shared/cameras/controls`
/// (old and new kernel names, with and without ids, menus and log prefixes), and settings checked
/// and ordered through `CameraControlDevice`, the seam the V4L2 ioctls sit behind.
struct CameraControlTests {
    static func device(_ name: String) throws -> ListedControlDevice {
        let file = "controls/\(name).txt"
        try #require(CameraData.verified.contains(file), "\(file) is not in ../shared/cameras: the camera tests need it")
        return ListedControlDevice(camera: "/dev/video0", controls: V4L2ControlListing(parsing: try CameraData.text(file)).controls)
    }

    @Test(arguments: [("logitech-c922", 17), ("logitech-c525", 16), ("3do-usb-camera-4k", 14), ("genius-widecam-f100", 12),
                      ("ms2109-hdmi-usb-capture", 3), ("rpi-camera-bcm2835-v4l2", 29)])
    func everyControlOfTheRealTablesIsRead(_ name: String, _ count: Int) throws {
        let controls = try Self.device(name).controls()
        #expect(controls.count == count, "\(controls.map(\.name))")
        #expect(controls.allSatisfy { $0.name.allSatisfy { $0.isLowercase || $0.isNumber || $0 == "_" } })
    }

    @Test func fieldsIdsFlagsAndMenusAreRead() throws {
        let c922 = try Self.device("logitech-c922").controls()
        let time = try #require(c922.first { $0.name == "exposure_time_absolute" })
        #expect(time.id == 0x009a0902 && time.kind == .int && time.minimum == 3 && time.maximum == 2047 && time.step == 1)
        #expect(time.defaultValue == 250 && time.value == 250 && time.flags == ["inactive"])
        let c525 = try Self.device("logitech-c525").controls()
        let auto = try #require(c525.first { $0.name == "exposure_auto" })
        #expect(auto.id == nil && auto.kind == .menu && auto.menu.map(\.index) == [1, 3] && auto.menu.map(\.name) == ["Manual Mode", "Aperture Priority Mode"])
        // A crowsnest log: a timestamp before each line, menus included, none of its text taken for an entry.
        let pi = try Self.device("rpi-camera-bcm2835-v4l2").controls()
        #expect(pi.first { $0.name == "power_line_frequency" }?.menu.map(\.name) == ["Disabled", "50 Hz", "60 Hz", "Auto"])
        #expect(pi.first { $0.name == "h264_profile" }?.menu.map(\.index) == [0, 1, 2, 4])
        #expect(pi.allSatisfy { $0.menu.allSatisfy { !$0.name.contains("crowsnest") } })
        #expect(CameraControl.kernelName("Exposure Time, Absolute") == "exposure_time_absolute")
        #expect(CameraControl.kernelName("White Balance Temperature, Auto") == "white_balance_temperature_auto")
    }

    static func set(_ name: String, _ settings: [String]) throws -> [String] {
        let device = try Self.device(name)
        try device.apply(try settings.map { try ControlSetting(parsing: $0) })
        return device.writes.map { "\($0.name)=\($0.value)" }
    }

    /// gpick's names reach the kernel's, old and new; a value that needs the manual mode sets it
    /// first, unless the mode is given.
    @Test func commonNamesSetTheKernelsControlsInOrder() throws {
        #expect(try Self.set("logitech-c922", ["exposure-time=100"]) == ["auto_exposure=1", "exposure_time_absolute=100"])
        #expect(try Self.set("logitech-c525", ["exposure-time=100"]) == ["exposure_auto=1", "exposure_absolute=100"])
        #expect(try Self.set("logitech-c922", ["focus=40", "exposure-mode=auto"])
                == ["focus_automatic_continuous=0", "auto_exposure=3", "focus_absolute=40"])
        #expect(try Self.set("genius-widecam-f100", ["white-balance=4500"]) == ["auto_white_balance=0", "white_balance_temperature=4500"])
        #expect(try Self.set("3do-usb-camera-4k", ["white-balance-mode=auto", "white-balance=4600"])
                == ["white_balance_temperature_auto=1", "white_balance_temperature=4600"])
        // Menus by word, by entry name and by number; booleans by word; the kernel's own names.
        #expect(try Self.set("rpi-camera-bcm2835-v4l2", ["power-line-frequency=auto", "exposure-mode=auto", "color_effects=sepia"])
                == ["auto_exposure=0", "power_line_frequency=3", "color_effects=2"])
        #expect(try Self.set("logitech-c525", ["led1-mode=Blink", "focus-mode=off"]) == ["focus_auto=0", "led1_mode=2"])
        #expect(try Self.set("logitech-c922", ["zoom=250", "pan=-3600", "brightness=0"]) == ["zoom_absolute=250", "pan_absolute=-3600", "brightness=0"])
    }

    /// One line naming the control, the value, what the camera takes and the camera; nothing set.
    @Test(arguments: [
        ("logitech-c922", "focus=42", "focus 42 is outside what camera /dev/video0 takes: 0…250 (step 5)"),
        ("logitech-c922", "exposure-time=3000", "exposure-time 3000 is outside what camera /dev/video0 takes: 3…2047"),
        ("logitech-c922", "power-line-frequency=auto", "power-line-frequency auto is outside what camera /dev/video0 takes: 50, 60, disabled, off"),
        ("logitech-c525", "exposure-mode=fast", "exposure-mode \"fast\" is not a value camera /dev/video0 takes: auto, manual"),
        ("ms2109-hdmi-usb-capture", "exposure-time=100", "camera /dev/video0 has no exposure-time control; it has: brightness, contrast, saturation"),
        ("logitech-c922", "exposre-time=100", "camera /dev/video0 has no control \"exposre-time\" (did you mean exposure-time?)"),
    ])
    func refusedValuesSayWhatTheCameraTakes(_ name: String, _ setting: String, _ message: String) throws {
        let device = try Self.device(name)
        do {
            // A good setting first: a refused one after it still sets nothing.
            try device.apply([ControlSetting(name: "brightness", value: "10"), try ControlSetting(parsing: setting)])
            Issue.record("\(setting) was set")
        } catch {
            #expect(error.kind == .usage && error.message.hasPrefix(message), "\(error.message)")
        }
        #expect(device.writes.isEmpty, "set before refusing: \(device.writes)")
    }

    @Test func settingsAreNameEqualsValue() throws {
        #expect(try ControlSetting(parsing: "Exposure-Time = 200") == ControlSetting(name: "exposure-time", value: "200"))
        for bad in ["exposure", "=3", "gain=", ""] {
            #expect(throws: GpickError.self) { try ControlSetting(parsing: bad) }
        }
    }
}
