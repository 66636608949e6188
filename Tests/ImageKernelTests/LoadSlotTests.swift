import Foundation
import ImageKernel
import Testing

@Suite("Load slots")
struct LoadSlotTests {
    @Test func aNewLoadSupersedesThePreviousOneInTheSameSlot() async {
        let loader = MemoryLoader()
        loader.serve("old", data: RawCoder.data(width: 1, height: 1), delay: .milliseconds(300))
        loader.serve("new", data: RawCoder.data(width: 2, height: 2), delay: .milliseconds(10))
        let manager = makeManager(loader: loader)
        let slots = LoadSlots()
        let landed = EventLog<String>()
        slots.load(memURL("old"), slot: "avatar", manager: manager) { result in
            landed.append((try? result.get()).map { "old \($0.image!.width)" } ?? "old cancelled")
        }
        slots.load(memURL("new"), slot: "avatar", manager: manager) { result in
            landed.append((try? result.get()).map { "new \($0.image!.width)" } ?? "new failed")
        }
        #expect(await eventually { landed.count == 2 })
        try? await Task.sleep(for: .milliseconds(400))
        #expect(landed.all == ["old cancelled", "new 2"])
        #expect(slots.operation(in: "avatar") == nil, "a finished slot is cleared")
    }

    @Test func differentSlotsDoNotInterfere() async {
        let loader = MemoryLoader()
        loader.serve("a", data: RawCoder.data(width: 1, height: 1), delay: .milliseconds(50))
        loader.serve("b", data: RawCoder.data(width: 2, height: 2), delay: .milliseconds(50))
        let manager = makeManager(loader: loader)
        let slots = LoadSlots()
        let landed = EventLog<Int>()
        slots.load(memURL("a"), slot: "1", manager: manager) { landed.append((try? $0.get())?.image?.width ?? -1) }
        slots.load(memURL("b"), slot: "2", manager: manager) { landed.append((try? $0.get())?.image?.width ?? -1) }
        #expect(await eventually { landed.count == 2 })
        #expect(Set(landed.all) == [1, 2])
    }

    @Test func cancelAllCancelsEverySlot() async {
        let loader = MemoryLoader()
        loader.serve("a", data: RawCoder.data(width: 1, height: 1), delay: .seconds(30))
        let manager = makeManager(loader: loader)
        let slots = LoadSlots()
        let landed = EventLog<ImageKernelError.Code?>()
        for slot in ["x", "y"] {
            slots.load(memURL("a"), slot: slot, manager: manager) { result in
                if case .failure(let e) = result { landed.append(e.code) } else { landed.append(nil) }
            }
        }
        slots.cancelAll()
        #expect(landed.all == [.cancelled, .cancelled])
    }
}
