// ws_sim / ws_geneve: streams a pcap through a verilated one-port decapsulator (`gre_decap` or
// `geneve_decap`), cycle by cycle, and writes the output pcap, a JSON report and (optionally)
// per-frame latencies, statuses and VNIs. See sim/README.md.
//
// The machinery (clock, AXI4-Lite, stream source and monitor, status matching, checks, traffic
// loop) is in clock.hpp, stream.hpp and traffic.hpp, shared with ws_vtep; this file has the
// command line, the top's ports, register map and outcome names, and the report.
// The bus width is taken from the verilated port type, so one source builds for every DATA_W.
//
// The top: the model's header in the build directory says which (sim/build.sh W builds
// gre_decap into build/sim/wW, sim/build.sh W geneve builds geneve_decap into
// build/sim/geneve_wW). Both have the same stream, AXI4-Lite and status ports and block_csr at
// 0x0000; geneve_decap adds the VNI side band m_axis_tvni/_tvni_valid (--vni-csv) and its VNI
// table at 0x1000, which clears itself after reset before the --regs writes.

// Verilator compiles user files with -Os after our -CFLAGS; the hot loop wants -O2.
#pragma GCC optimize("O2")

#if __has_include("Vgeneve_decap.h")
#define WS_TOP_GENEVE 1
#include "Vgeneve_decap.h"
#include "Vgeneve_decap___024root.h"
#else
#define WS_TOP_GENEVE 0
#include "Vgre_decap.h"
#include "Vgre_decap___024root.h"
#endif
#include "verilated.h"

#include "clock.hpp"
#include "json.hpp"
#include "pcap.hpp"
#include "regmap.hpp"
#include "stream.hpp"
#include "traffic.hpp"
#include "util.hpp"
#include "vni_sideband.hpp"

#include <cstdio>
#include <string>
#include <vector>

namespace {

using namespace ws;

#if WS_TOP_GENEVE
using Top = Vgeneve_decap;
using Root = Vgeneve_decap___024root;  // the model's whole state, for the idle fixed-point test
// Outcome names and register map: sim/regmap.hpp, generated from wirespeed/regmap.py.
namespace blk = regmap::geneve_decap;
constexpr const char* kTopName = "geneve_decap";
constexpr const char* kProg = "ws_geneve";
constexpr const char* kIdText = "WSGN";
constexpr bool kHasVniTable = true;
// The VNI table's hash_table window: the decap shell's second 4 KiB window.
constexpr uint32_t kVniTable = regmap::geneve_decap_map::VNI_TABLE;
#else
using Top = Vgre_decap;
using Root = Vgre_decap___024root;  // the model's whole state, for the idle fixed-point test
namespace blk = regmap::gre_decap;
constexpr const char* kTopName = "gre_decap";
constexpr const char* kProg = "ws_sim";
constexpr const char* kIdText = "WSG1";
constexpr bool kHasVniTable = false;
constexpr uint32_t kVniTable = 0;
#endif

WS_AXIS_PORT(InPort, s_axis);
WS_AXIS_PORT(OutPort, m_axis);
WS_STAT_PORT(StatPort, m_stat);
using Dir = Direction<Top, InPort, OutPort, StatPort>;
constexpr unsigned DATA_W = Dir::Source::DATA_W;

#if WS_TOP_GENEVE
WS_TVNI_PORT(VniPort, m_axis);
using Sideband = VniSideband<Top, Dir, VniPort>;
#endif

// ------------------------------------------------------------------------------------------------
// Command line

struct Options : CommonOptions {
    std::string in, out, latency_csv, stat_csv, vni_csv;
};

const char* kUsage =
    "usage: ws_sim|ws_geneve --in IN.pcap --out OUT.pcap --json REPORT.json [options]\n"
    "  --regs FILE            AXI4-Lite writes after reset, lines \"0xADDR 0xVALUE\" ('#' comments)\n"
    "  --clock-mhz F          clock frequency (default 250)\n"
    "  --line-rate-gbps F     input pacing (default 10); 0 = back-to-back\n"
    "  --idle-prob P          probability of an idle s_axis cycle (default 0)\n"
    "  --stall-prob P         probability of m_axis_tready=0 in a cycle (default 0)\n"
    "  --seed S               PRNG seed (default 1)\n"
    "  --latency-csv FILE     per emitted frame: index_in,first_in_cycle,first_out_cycle,latency\n"
    "  --stat-csv FILE        per input frame, from m_stat: index_in,outcome,emit,len\n"
    "  --vni-csv FILE         ws_geneve: index,vni per frame of OUT with m_axis_tvni_valid=1\n"
    "  --progress             progress line on stderr about every second\n"
    "  --max-idle-cycles N    stall watchdog (default 100000)\n"
    "  --no-skip-idle         evaluate every idle cycle of a pacing gap (see sim/README.md)\n"
    "exit codes: 0 ok, 2 bad input/arguments, 3 watchdog, 4 balance check failed,\n"
    "            5 AXI4-Lite error\n";

Options parse_args(int argc, char** argv) {
    Options o;
    ArgScanner a(argc, argv, kUsage);
    while (a.next()) {
        const std::string& f = a.flag();
        if (f == "--in") o.in = a.value();
        else if (f == "--out") o.out = a.value();
        else if (f == "--latency-csv") o.latency_csv = a.value();
        else if (f == "--stat-csv") o.stat_csv = a.value();
        else if (f == "--vni-csv") o.vni_csv = a.value();
        else if (!o.parse(a)) a.unknown();
    }
    if (o.in.empty()) die(EXIT_INPUT, "missing --in IN.pcap (see --help)");
    if (o.out.empty()) die(EXIT_INPUT, "missing --out OUT.pcap (see --help)");
    if (!o.vni_csv.empty() && !WS_TOP_GENEVE) die(EXIT_INPUT, "--vni-csv: %s has no VNI side band", kTopName);
    o.validate();
    return o;
}

// ------------------------------------------------------------------------------------------------
// The simulation

class Sim {
public:
    Sim(const Options& o, PcapReader& reader, uint64_t total)
        : o_(o), k_(kTopName),
          dir(k_.t, DirConfig{"", blk::kOutcomeNames, blk::kNumOutcomes, o.seed, o.seed ^ 0x5eed5eed5eed5eedull},
              o, &reader, total) {
        k_.set_monitor([this](uint64_t c) { dir.monitor(c); });
    }

    int run(const std::vector<RegWrite>& writes);

private:
    const Options& o_;
    Clock<Top, Root> k_;
    double wall_start_ = 0, wall_end_ = 0, last_progress_ = 0;

public:
    Dir dir;
#if WS_TOP_GENEVE
    Sideband vni{"m_axis"};
#endif

private:
    int finish();
};

int Sim::run(const std::vector<RegWrite>& writes) {
    wall_start_ = now_seconds();
    last_progress_ = wall_start_;

    // ---- reset ----
    dir.reset_ports();
    k_.reset();

    // ---- identify, configure ----
    auto& axil = k_.axil();
    const uint32_t id = k_.access(false, blk::ID, 0, "ID", false);
    if (axil.resp() != 0 || id != blk::kIdValue)
        warn("ID register reads 0x%08x (%s); expected 0x%08x (\"%s\")", id,
             axil_resp_name(axil.resp()), blk::kIdValue, kIdText);
    const uint32_t params = k_.access(false, blk::PARAMS, 0, "PARAMS", false);
    if (axil.resp() == 0 && (params & 0xffffu) != DATA_W)
        die(EXIT_BALANCE, "PARAMS says DATA_W=%u but the harness was built for %u-bit ports",
            params & 0xffffu, DATA_W);
    if (kHasVniTable) wait_table_clear(k_, kVniTable, "VNI table");
    k_.apply_writes(writes, o_.regs);

    // ---- traffic ----
#if WS_TOP_GENEVE
    run_traffic(k_, o_, wall_start_, last_progress_, [this](uint64_t c) { vni.sample(k_.t, dir, c); }, dir);
#else
    run_traffic(k_, o_, wall_start_, last_progress_, [](uint64_t) {}, dir);
#endif
    return finish();
}

int Sim::finish() {
    dir.drive_idle();
    dir.read_counters(k_, 0x0000);
    wall_end_ = now_seconds();
    if (o_.progress) progress_line(k_, wall_start_, wall_end_, dir);
    k_.final();
    dir.close();
#if WS_TOP_GENEVE
    vni.close();
#endif

    std::vector<std::string> errors;
    dir.check(errors);

    // ---- report ----
    const double wall = wall_end_ - wall_start_;
    JsonWriter j;
    j.begin_object();
    j.field("data_width", DATA_W);
    j.field("clock_mhz", o_.clock_mhz);
    j.field("line_rate_gbps", o_.line_rate_gbps);
    dir.json_fields(j);
    j.field("wall_seconds", wall);
    j.field("sim_packets_per_second", wall > 0 ? (double)dir.src.in_done() / wall : 0.0);
    j.field("idle_skipped_cycles", k_.skipped_cycles());
    j.end_object();
    write_json(o_.json, j);

    dir.warn_keep_issues();
#if WS_TOP_GENEVE
    vni.warn_issues();
#endif
    if (!errors.empty()) {
        for (const auto& e : errors) fprintf(stderr, "%s: error: %s\n", g_prog, e.c_str());
        return EXIT_BALANCE;
    }
    return EXIT_OK;
}

}  // namespace

int main(int argc, char** argv) {
    g_prog = kProg;
    const Options o = parse_args(argc, argv);
    std::vector<RegWrite> writes;
    if (!o.regs.empty()) writes = read_regs(o.regs);
    try {
        PcapReader reader;
        const uint64_t total = open_input(reader, o.in);
        Sim sim(o, reader, total);
        sim.dir.sink.open(o.out);
        if (!o.latency_csv.empty()) sim.dir.match.open_csv(o.latency_csv);
        if (!o.stat_csv.empty()) sim.dir.match.open_stat_csv(o.stat_csv);
#if WS_TOP_GENEVE
        if (!o.vni_csv.empty()) sim.vni.open_csv(o.vni_csv);
#endif
        return sim.run(writes);
    } catch (const FileError& e) {
        fprintf(stderr, "%s: error: %s\n", g_prog, e.msg.c_str());
        return EXIT_INPUT;
    } catch (const std::exception& e) {
        fprintf(stderr, "%s: internal error: %s\n", g_prog, e.what());
        return EXIT_INTERNAL;
    }
}
