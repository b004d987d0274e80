import SuperviseLifecycle
import Testing

/// The pure rules behind a scheduled task's conditions: idle, power, network.
@Suite(.timeLimit(.minutes(5))) struct ConditionRuleTests {
    private func cpu(_ avg10: Double) -> PressureStall {
        PressureStall(text: "some avg10=\(avg10) avg60=50.00 avg300=50.00 total=1\nfull avg10=0.00 avg60=0.00 avg300=0.00 total=0\n")!
    }

    @Test func idleIsSomeAvg10BelowTheThreshold() {
        #expect(IdleRule.standard.isIdle(cpu(0)))
        #expect(IdleRule.standard.isIdle(cpu(9.99)))
        #expect(!IdleRule.standard.isIdle(cpu(10)))
        #expect(!IdleRule.standard.isIdle(cpu(89.61)))
        #expect(IdleRule(threshold: 0).isIdle(cpu(0)) == false, "a threshold of 0 is never idle")
    }

    @Test func theTriggerFiresAtTheThresholdsShareOfTheWindow() {
        #expect(IdleRule.standard.triggerStall(window: .seconds(2)) == .milliseconds(200))
        #expect(IdleRule(threshold: 250).triggerStall(window: .seconds(2)) == .seconds(2))
        #expect(IdleRule(threshold: -1).triggerStall(window: .seconds(2)) == .microseconds(1))
    }

    @Test func externalPower() {
        let mains = PowerSupply(type: "Mains", online: true, status: nil)
        let unplugged = PowerSupply(type: "Mains", online: false, status: nil)
        let usb = PowerSupply(type: "USB", online: true, status: nil)
        func battery(_ status: String?) -> PowerSupply { PowerSupply(type: "Battery", online: nil, status: status) }
        #expect(PowerSupply.onExternalPower([]), "no supply at all: a server")
        #expect(PowerSupply.onExternalPower([unplugged]), "no battery")
        #expect(PowerSupply.onExternalPower([mains, battery("Discharging")]))
        #expect(PowerSupply.onExternalPower([usb, battery("Discharging")]))
        #expect(!PowerSupply.onExternalPower([unplugged, battery("Discharging")]))
        #expect(!PowerSupply.onExternalPower([battery("Discharging")]))
        #expect(!PowerSupply.onExternalPower([battery(nil)]))
        #expect(!PowerSupply.onExternalPower([battery("Unknown")]))
        #expect(PowerSupply.onExternalPower([battery("Charging")]))
        #expect(PowerSupply.onExternalPower([battery("Full")]))
        #expect(PowerSupply.onExternalPower([battery("Not charging"), unplugged]))
    }

    @Test func ipv4DefaultRoutes() {
        let table = """
            Iface\tDestination\tGateway \tFlags\tRefCnt\tUse\tMetric\tMask\t\tMTU\tWindow\tIRTT
            eth0\t00000000\t010200C0\t0003\t0\t0\t0\t00000000\t0\t0\t0
            eth0\t000200C0\t00000000\t0001\t0\t0\t0\t00FFFFFF\t0\t0\t0
            wlan0\t00000000\t010200C0\t0002\t0\t0\t0\t00000000\t0\t0\t0
            lo\t00000000\t00000000\t0201\t0\t0\t0\t00000000\t0\t0\t0
            broken\t00000000
            """
        #expect(DefaultRoutes.ipv4Links(table) == ["eth0"])
        #expect(DefaultRoutes.ipv4Links("Iface\tDestination\n") == [])
    }

    @Test func ipv6DefaultRoutes() {
        let zero = String(repeating: "0", count: 32)
        let table = """
            fd000000000000000000000000000000 40 \(zero) 00 \(zero) 00000100 00000001 00000000 00000001     eth0
            \(zero) 00 \(zero) 00 fd000000000000000000000000000001 00000400 00000003 00000000 00000003     eth1
            \(zero) 00 \(zero) 00 \(zero) ffffffff 00000001 00000000 00200200       lo
            \(zero) 00 \(zero) 00 \(zero) 00000400 00000003 00000000 00000002     down0
            """
        #expect(DefaultRoutes.ipv6Links(table) == ["eth1"])
    }
}
