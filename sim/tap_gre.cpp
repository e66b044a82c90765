// ws_tap_gre: the verilated `gre_decap` (docs/gre_decap.md) live between two Linux TAP devices:
// frames the kernel sends into the input TAP go through the block and leave, decapsulated (or
// passed), by the output TAP. Frames the kernel sends into the output TAP are not read (the block
// has one direction). See sim/README.md "Live on TAP devices" and docs/tap.md.

// Verilator compiles user files with -Os after our -CFLAGS; the hot loop wants -O2.
#pragma GCC optimize("O2")

#include "Vgre_decap.h"
#include "Vgre_decap___024root.h"
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
using Top = Vgre_decap;
using Root = Vgre_decap___024root;
namespace gre = regmap::gre_decap;

WS_AXIS_PORT(InPort, s_axis);
WS_AXIS_PORT(OutPort, m_axis);
WS_STAT_PORT(StatPort, m_stat);
using Dir = TapDirection<Top, InPort, OutPort, StatPort>;
constexpr unsigned DATA_W = Dir::Source::DATA_W;

struct Options : TapOptions {
    std::string in_tap, in_netns, out_tap, out_netns;
};

const char* kUsage =
    "usage: ws_tap_gre --in-tap NAME --out-tap NAME [options]\n"
    "  --in-tap NAME          TAP of the input (network side: GRE frames in)\n"
    "  --in-netns NS          create it in network namespace NS (`ip netns` name or a path)\n"
    "  --out-tap NAME         TAP of the output (host side: decapsulated frames out)\n"
    "  --out-netns NS         create it in network namespace NS\n"
    "  --regs FILE            AXI4-Lite writes after reset, lines \"0xADDR 0xVALUE\" (allow list, CONTROL)\n"
    "  --json                 the view as JSON lines on stdout (the last one has \"final\")\n"
    "  --quiet                no view, only the final counters\n"
    "  --interval S           seconds between views (default 0)\n"
    "  --duration S           stop by itself after S seconds (default: at SIGINT/SIGTERM)\n"
    "  --queue N              frames buffered at the input (default 64)\n"
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
        if (f == "--in-tap") o.in_tap = a.value();
        else if (f == "--in-netns") o.in_netns = a.value();
        else if (f == "--out-tap") o.out_tap = a.value();
        else if (f == "--out-netns") o.out_netns = a.value();
        else if (!o.parse(a)) a.unknown();
    }
    if (o.in_tap.empty()) die(EXIT_INPUT, "missing --in-tap NAME (see --help)");
    if (o.out_tap.empty()) die(EXIT_INPUT, "missing --out-tap NAME (see --help)");
    if (o.in_tap == o.out_tap && o.in_netns == o.out_netns)
        die(EXIT_INPUT, "--in-tap and --out-tap name the same device '%s'", o.in_tap.c_str());
    o.validate();
    return o;
}

int run(const Options& o) {
    std::vector<RegWrite> writes;
    if (!o.regs.empty()) writes = read_regs(o.regs);
    TapDevice in, out;
    in.open_tap(o.in_tap, o.in_netns, "input");
    out.open_tap(o.out_tap, o.out_netns, "output");
    install_stop_handlers();

    Clock<Top, Root> k("gre_decap");
    Dir dir(k.t, {"gre", "in", "out", gre::kOutcomeNames, gre::kNumOutcomes, 0x0000}, o.queue);
    dir.bind(in, out);
    dir.src.impair(o.loss, o.reorder, o.seed);
    k.set_monitor([&](uint64_t c) { dir.monitor(c); });
    dir.reset_ports();
    k.reset();
    const uint32_t id = k.access(false, gre::ID, 0, "ID", true);
    if (id != gre::kIdValue) die(EXIT_BALANCE, "ID reads 0x%08x, expected 0x%08x (\"WSG1\")", id, gre::kIdValue);
    const uint32_t params = k.access(false, gre::PARAMS, 0, "PARAMS", true);
    if ((params & 0xffffu) != DATA_W)
        die(EXIT_BALANCE, "PARAMS says DATA_W=%u but the harness was built for %u", params & 0xffffu, DATA_W);
    k.apply_writes(writes, o.regs);

    char title[160];
    snprintf(title, sizeof title, "wirespeed tap: gre_decap, %u-bit bus", DATA_W);
    LiveView view(o, title);
    view.meters = {{"port", "in rx", in.where()}, {"port", "out tx", out.where()}};
    for (int n = 0; n < gre::kNumOutcomes; ++n) view.meters.push_back({"outcome", std::string("gre ") + gre::kOutcomeNames[n], ""});
    std::vector<std::pair<uint64_t, uint64_t>> st(view.meters.size());
    auto stats = [&]() -> const std::vector<std::pair<uint64_t, uint64_t>>& {
        st[0] = {dir.src.in_done(), dir.src.bytes_in()};
        st[1] = {dir.sink.packets_out(), dir.sink.bytes_out()};
        for (int n = 0; n < gre::kNumOutcomes; ++n) st[2 + n] = {dir.match.stat_pkts()[n], dir.match.stat_bytes()[n]};
        return st;
    };
    fprintf(stderr, "%s: ready: input on TAP %s, output on TAP %s (%zu register writes); Ctrl-C stops\n", g_prog,
            in.where().c_str(), out.where().c_str(), writes.size());
    uint64_t busy = 0;
    run_live(k, o, view, stats, busy, dir);
    return finish_live(k, o, view, busy, dir);
}

}  // namespace

int main(int argc, char** argv) {
    g_prog = "ws_tap_gre";
    const Options o = parse_args(argc, argv);
    try {
        return run(o);
    } catch (const std::exception& e) {
        fprintf(stderr, "%s: internal error: %s\n", g_prog, e.what());
        return EXIT_INTERNAL;
    }
}
