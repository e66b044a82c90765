// ws_tap_vtep: the verilated `vtep_top` (docs/vxlan.md) live between two Linux TAP devices:
// frames the kernel sends into the network-port TAP go through vxlan_decap and leave by the
// host-port TAP; frames sent into the host-port TAP go through vxlan_encap and leave by the
// network-port TAP. See sim/README.md "Live on TAP devices" and docs/tap.md.

// Verilator compiles user files with -Os after our -CFLAGS; the hot loop wants -O2.
#pragma GCC optimize("O2")

#include "Vvtep_top.h"
#include "Vvtep_top___024root.h"
#include "verilated.h"

#include "clock.hpp"
#include "regmap.hpp"
#include "tap_dev.hpp"
#include "tap_run.hpp"
#include "tap_stream.hpp"
#include "util.hpp"

#include <string>
#include <vector>

namespace {

using namespace ws;
using Top = Vvtep_top;
using Root = Vvtep_top___024root;

WS_AXIS_PORT(NetIn, s_net_axis);
WS_AXIS_PORT(HostOut, m_host_axis);
WS_STAT_PORT(DecapStat, m_decap_stat);
WS_AXIS_PORT(HostIn, s_host_axis);
WS_AXIS_PORT(NetOut, m_net_axis);
WS_STAT_PORT(EncapStat, m_encap_stat);
using Decap = TapDirection<Top, NetIn, HostOut, DecapStat>;
using Encap = TapDirection<Top, HostIn, NetOut, EncapStat>;
constexpr unsigned DATA_W = Decap::Source::DATA_W;

struct Options : TapOptions {
    std::string net_tap, net_netns, host_tap, host_netns;
};

const char* kUsage =
    "usage: ws_tap_vtep --net-tap NAME --host-tap NAME [options]\n"
    "  --net-tap NAME         TAP of the network port (VXLAN in, decapsulated to the host port)\n"
    "  --net-netns NS         create it in network namespace NS (`ip netns` name or a path)\n"
    "  --host-tap NAME        TAP of the host port (plain Ethernet in, encapsulated to the network port)\n"
    "  --host-netns NS        create it in network namespace NS\n"
    "  --regs FILE            AXI4-Lite writes after reset, lines \"0xADDR 0xVALUE\" (tunnels, VNIs, CONTROL)\n"
    "  --json                 the view as JSON lines on stdout (the last one has \"final\")\n"
    "  --quiet                no view, only the final counters\n"
    "  --interval S           seconds between views (default 0)\n"
    "  --duration S           stop by itself after S seconds (default: at SIGINT/SIGTERM)\n"
    "  --queue N              frames buffered per input port (default 64)\n"
    "  --max-idle-cycles N    watchdog while frames are in flight (default 1000000)\n"
    "  --clock-mhz F          the clock the view's cycle figures assume (default 250)\n"
    "  --loss P, --reorder P  impair the network-side input: lose a frame read from its TAP with\n"
    "                         probability P / queue it after the next one (for kernels without netem)\n"
    "  --seed S               PRNG seed of the impairments (default 0)\n"
    "  --read-low-beats N     read a TAP only while fewer than N beats wait in its port's queue\n"
    "                         (default 32; 0: every 16 cycles whatever is queued)\n"
    "Ctrl-C or SIGTERM: drain, read the counters, check that they balance, exit.\n"
    "exit codes: 0 ok, 2 bad arguments, 3 watchdog, 4 counters do not balance, 5 AXI4-Lite error,\n"
    "            6 TAP device error (not root, no /dev/net/tun, name taken)\n";

Options parse_args(int argc, char** argv) {
    Options o;
    ArgScanner a(argc, argv, kUsage);
    while (a.next()) {
        const std::string& f = a.flag();
        if (f == "--net-tap") o.net_tap = a.value();
        else if (f == "--net-netns") o.net_netns = a.value();
        else if (f == "--host-tap") o.host_tap = a.value();
        else if (f == "--host-netns") o.host_netns = a.value();
        else if (!o.parse(a)) a.unknown();
    }
    if (o.net_tap.empty()) die(EXIT_INPUT, "missing --net-tap NAME (see --help)");
    if (o.host_tap.empty()) die(EXIT_INPUT, "missing --host-tap NAME (see --help)");
    if (o.net_tap == o.host_tap && o.net_netns == o.host_netns)
        die(EXIT_INPUT, "--net-tap and --host-tap name the same device '%s'", o.net_tap.c_str());
    o.validate();
    return o;
}

template <class Clk>
void identify(Clk& k, uint32_t base, uint32_t want, const char* what) {
    const uint32_t id = k.access(false, base + regmap::ID, 0, what, true);
    if (id != want) die(EXIT_BALANCE, "%s ID (0x%04x) reads 0x%08x, expected 0x%08x", what, base, id, want);
    const uint32_t params = k.access(false, base + regmap::PARAMS, 0, what, true);
    if ((params & 0xffffu) != DATA_W)
        die(EXIT_BALANCE, "%s PARAMS says DATA_W=%u but the harness was built for %u", what, params & 0xffffu, DATA_W);
}

int run(const Options& o) {
    std::vector<RegWrite> writes;
    if (!o.regs.empty()) writes = read_regs(o.regs);
    TapDevice net, host;
    net.open_tap(o.net_tap, o.net_netns, "network-port");
    host.open_tap(o.host_tap, o.host_netns, "host-port");
    install_stop_handlers();

    Clock<Top, Root> k("vtep_top");
    Decap decap(k.t, {"decap", "net", "host", regmap::vxlan_decap::kOutcomeNames, regmap::vxlan_decap::kNumOutcomes,
                      regmap::vtep_top::DECAP},
                o.queue);
    Encap encap(k.t, {"encap", "host", "net", regmap::vxlan_encap::kOutcomeNames, regmap::vxlan_encap::kNumOutcomes,
                      regmap::vtep_top::ENCAP},
                o.queue);
    decap.bind(net, host);
    encap.bind(host, net);
    decap.src.impair(o.loss, o.reorder, o.seed);
    k.set_monitor([&](uint64_t c) {
        decap.monitor(c);
        encap.monitor(c);
    });
    decap.reset_ports();
    encap.reset_ports();
    k.reset();
    identify(k, regmap::vtep_top::DECAP, regmap::vxlan_decap::kIdValue, "decap");
    identify(k, regmap::vtep_top::ENCAP, regmap::vxlan_encap::kIdValue, "encap");
    wait_table_clear(k, regmap::vtep_top::VNI_TABLE, "VNI table");
    wait_table_clear(k, regmap::vtep_top::TUNNEL_TABLE, "tunnel table");
    k.apply_writes(writes, o.regs);

    char title[160];
    snprintf(title, sizeof title, "wirespeed tap: vtep_top, %u-bit bus", DATA_W);
    LiveView view(o, title);
    view.meters = {{"port", "net rx", net.where()},  {"port", "net tx", net.where()},
                   {"port", "host rx", host.where()}, {"port", "host tx", host.where()}};
    for (int n = 0; n < decap.cfg.num_outcomes; ++n) view.meters.push_back({"outcome", std::string("decap ") + decap.cfg.outcome_names[n], ""});
    for (int n = 0; n < encap.cfg.num_outcomes; ++n) view.meters.push_back({"outcome", std::string("encap ") + encap.cfg.outcome_names[n], ""});
    std::vector<std::pair<uint64_t, uint64_t>> st(view.meters.size());
    auto stats = [&]() -> const std::vector<std::pair<uint64_t, uint64_t>>& {
        st[0] = {decap.src.in_done(), decap.src.bytes_in()};
        st[1] = {encap.sink.packets_out(), encap.sink.bytes_out()};
        st[2] = {encap.src.in_done(), encap.src.bytes_in()};
        st[3] = {decap.sink.packets_out(), decap.sink.bytes_out()};
        size_t i = 4;
        for (int n = 0; n < decap.cfg.num_outcomes; ++n, ++i) st[i] = {decap.match.stat_pkts()[n], decap.match.stat_bytes()[n]};
        for (int n = 0; n < encap.cfg.num_outcomes; ++n, ++i) st[i] = {encap.match.stat_pkts()[n], encap.match.stat_bytes()[n]};
        return st;
    };
    fprintf(stderr, "%s: ready: network port on TAP %s, host port on TAP %s (%zu register writes); Ctrl-C stops\n",
            g_prog, net.where().c_str(), host.where().c_str(), writes.size());
    uint64_t busy = 0;
    run_live(k, o, view, stats, busy, decap, encap);
    return finish_live(k, o, view, busy, decap, encap);
}

}  // namespace

int main(int argc, char** argv) {
    g_prog = "ws_tap_vtep";
    const Options o = parse_args(argc, argv);
    try {
        return run(o);
    } catch (const std::exception& e) {
        fprintf(stderr, "%s: internal error: %s\n", g_prog, e.what());
        return EXIT_INTERNAL;
    }
}
