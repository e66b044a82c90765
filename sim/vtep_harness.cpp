// ws_vtep: streams pcaps through the verilated `vtep_top` (docs/vxlan.md), both directions at
// once, cycle by cycle: network-port frames through vxlan_decap to the host port, host-port
// frames through vxlan_encap to the network port. Writes both output pcaps, a JSON report with
// one object per direction and, if asked, the VNI of each decapsulated frame. See sim/README.md.
//
// The machinery is shared with ws_sim (clock.hpp, stream.hpp, traffic.hpp); this file has the
// command line, vtep_top's ports, register map and outcome names, the VNI side band and the report.

// Verilator compiles user files with -Os after our -CFLAGS; the hot loop wants -O2.
#pragma GCC optimize("O2")

#include "Vvtep_top.h"
#include "Vvtep_top___024root.h"
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

using Top = Vvtep_top;
using Root = Vvtep_top___024root;

// Network -> host: decap.
WS_AXIS_PORT(NetIn, s_net_axis);
WS_AXIS_PORT(HostOut, m_host_axis);
WS_STAT_PORT(DecapStat, m_decap_stat);
// Host -> network: encap.
WS_AXIS_PORT(HostIn, s_host_axis);
WS_AXIS_PORT(NetOut, m_net_axis);
WS_STAT_PORT(EncapStat, m_encap_stat);

using Decap = Direction<Top, NetIn, HostOut, DecapStat>;
using Encap = Direction<Top, HostIn, NetOut, EncapStat>;
WS_TVNI_PORT(HostVni, m_host_axis);
constexpr unsigned DATA_W = Decap::Source::DATA_W;
static_assert(Encap::Source::DATA_W == DATA_W, "ports of different widths");

// Outcome codes and register map (docs/vxlan.md): sim/regmap.hpp, generated from
// wirespeed/regmap.py.
constexpr int kDecapOutcomes = regmap::vxlan_decap::kNumOutcomes;
const char* const* const kDecapNames = regmap::vxlan_decap::kOutcomeNames;
constexpr int kEncapOutcomes = regmap::vxlan_encap::kNumOutcomes;
const char* const* const kEncapNames = regmap::vxlan_encap::kOutcomeNames;
constexpr uint32_t kDecapBase = regmap::vtep_top::DECAP, kEncapBase = regmap::vtep_top::ENCAP;
constexpr uint32_t kVniTable = regmap::vtep_top::VNI_TABLE;
constexpr uint32_t kTunnelTable = regmap::vtep_top::TUNNEL_TABLE;
constexpr uint32_t kDecapId = regmap::vxlan_decap::kIdValue;  // "WSVD"
constexpr uint32_t kEncapId = regmap::vxlan_encap::kIdValue;  // "WSVE"

// ------------------------------------------------------------------------------------------------
// Command line

struct Options : CommonOptions {
    std::string net_in, net_out, host_in, host_out, host_vni_csv, decap_latency_csv, encap_latency_csv,
        decap_stat_csv, encap_stat_csv;
};

const char* kUsage =
    "usage: ws_vtep [--net-in NET.pcap] [--net-out NET_OUT.pcap] [--host-in HOST.pcap]\n"
    "               [--host-out HOST_OUT.pcap] --json REPORT.json [options]\n"
    "  --net-in FILE          frames for s_net_axis (decap: VXLAN frames in)\n"
    "  --host-out FILE        whole frames from m_host_axis (decap: inner frames out)\n"
    "  --host-in FILE         frames for s_host_axis (encap: host frames in)\n"
    "  --net-out FILE         whole frames from m_net_axis (encap: encapsulated frames out)\n"
    "  --host-vni-csv FILE    index,vni per frame of HOST_OUT with m_host_axis_tvni_valid=1\n"
    "                         (index = record number in HOST_OUT, 0-based)\n"
    "  --regs FILE            AXI4-Lite writes after reset, lines \"0xADDR 0xVALUE\" ('#' comments)\n"
    "  --clock-mhz F          clock frequency (default 250)\n"
    "  --line-rate-gbps F     pacing of each input (default 10); 0 = back-to-back\n"
    "  --idle-prob P          probability of an idle input cycle, each input (default 0)\n"
    "  --stall-prob P         probability of output tready=0 in a cycle, each output (default 0)\n"
    "  --seed S               PRNG seed (default 1)\n"
    "  --decap-latency-csv FILE, --encap-latency-csv FILE\n"
    "                         per emitted frame: index_in,first_in_cycle,first_out_cycle,latency\n"
    "  --decap-stat-csv FILE, --encap-stat-csv FILE\n"
    "                         per input frame, from m_decap_stat/m_encap_stat: index_in,outcome,emit,len\n"
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
        if (f == "--net-in") o.net_in = a.value();
        else if (f == "--net-out") o.net_out = a.value();
        else if (f == "--host-in") o.host_in = a.value();
        else if (f == "--host-out") o.host_out = a.value();
        else if (f == "--host-vni-csv") o.host_vni_csv = a.value();
        else if (f == "--decap-latency-csv") o.decap_latency_csv = a.value();
        else if (f == "--encap-latency-csv") o.encap_latency_csv = a.value();
        else if (f == "--decap-stat-csv") o.decap_stat_csv = a.value();
        else if (f == "--encap-stat-csv") o.encap_stat_csv = a.value();
        else if (!o.parse(a)) a.unknown();
    }
    o.validate();
    return o;
}

// ------------------------------------------------------------------------------------------------
// The simulation

class Sim {
public:
    Sim(const Options& o, PcapReader* net, uint64_t net_total, PcapReader* host, uint64_t host_total)
        : o_(o), k_("vtep_top"),
          decap(k_.t, DirConfig{"decap", kDecapNames, kDecapOutcomes, o.seed, o.seed ^ 0x5eed5eed5eed5eedull},
                o, net, net_total),
          encap(k_.t, DirConfig{"encap", kEncapNames, kEncapOutcomes, o.seed ^ 0xe4ca9e4ca9e4ca9eull,
                                o.seed ^ 0x57a1157a1157a115ull},
                o, host, host_total) {
        k_.set_monitor([this](uint64_t c) {
            decap.monitor(c);
            encap.monitor(c);
        });
    }

    int run(const std::vector<RegWrite>& writes);

private:
    const Options& o_;
    Clock<Top, Root> k_;
    double wall_start_ = 0, wall_end_ = 0, last_progress_ = 0;

public:
    Decap decap;
    Encap encap;
    // m_host_axis_tvni/_tvni_valid (--host-vni-csv)
    VniSideband<Top, Decap, HostVni> vni{"m_host_axis"};

private:
    void identify(uint32_t base, uint32_t want_id, const char* what);
    int finish();
};

void Sim::identify(uint32_t base, uint32_t want_id, const char* what) {
    auto& axil = k_.axil();
    char name[64];
    snprintf(name, sizeof name, "%s ID", what);
    const uint32_t id = k_.access(false, base + regmap::ID, 0, name, false);
    if (axil.resp() != 0 || id != want_id)
        warn("%s ID register (0x%04x) reads 0x%08x (%s); expected 0x%08x", what, base, id,
             axil_resp_name(axil.resp()), want_id);
    snprintf(name, sizeof name, "%s PARAMS", what);
    const uint32_t params = k_.access(false, base + regmap::PARAMS, 0, name, false);
    if (axil.resp() == 0 && (params & 0xffffu) != DATA_W)
        die(EXIT_BALANCE, "%s PARAMS (0x%04x) says DATA_W=%u but the harness was built for %u-bit ports",
            what, base + regmap::PARAMS, params & 0xffffu, DATA_W);
}

int Sim::run(const std::vector<RegWrite>& writes) {
    wall_start_ = now_seconds();
    last_progress_ = wall_start_;

    // ---- reset ----
    decap.reset_ports();
    encap.reset_ports();
    k_.reset();

    // ---- identify, wait for the tables, configure ----
    identify(kDecapBase, kDecapId, "decap");
    identify(kEncapBase, kEncapId, "encap");
    wait_table_clear(k_, kVniTable, "VNI table");
    wait_table_clear(k_, kTunnelTable, "tunnel table");
    k_.apply_writes(writes, o_.regs);

    // ---- traffic ----
    run_traffic(k_, o_, wall_start_, last_progress_, [this](uint64_t c) { vni.sample(k_.t, decap, c); }, decap,
                encap);
    return finish();
}

int Sim::finish() {
    decap.drive_idle();
    encap.drive_idle();
    decap.read_counters(k_, kDecapBase);
    encap.read_counters(k_, kEncapBase);
    wall_end_ = now_seconds();
    if (o_.progress) progress_line(k_, wall_start_, wall_end_, decap, encap);
    k_.final();
    decap.close();
    encap.close();
    vni.close();

    std::vector<std::string> errors;
    decap.check(errors);
    encap.check(errors);

    // ---- report ----
    const double wall = wall_end_ - wall_start_;
    const uint64_t packets = decap.src.in_done() + encap.src.in_done();
    JsonWriter j;
    j.begin_object();
    j.field("data_width", DATA_W);
    j.field("clock_mhz", o_.clock_mhz);
    j.field("line_rate_gbps", o_.line_rate_gbps);
    j.field("cycles", span_cycles(decap, encap));
    j.field("wall_seconds", wall);
    j.field("sim_packets_per_second", wall > 0 ? (double)packets / wall : 0.0);
    j.field("idle_skipped_cycles", k_.skipped_cycles());
    j.key("decap");
    j.begin_object();
    decap.json_fields(j);
    j.end_object();
    j.key("encap");
    j.begin_object();
    encap.json_fields(j);
    j.end_object();
    j.end_object();
    write_json(o_.json, j);

    decap.warn_keep_issues();
    encap.warn_keep_issues();
    vni.warn_issues();
    if (!errors.empty()) {
        for (const auto& e : errors) fprintf(stderr, "%s: error: %s\n", g_prog, e.c_str());
        return EXIT_BALANCE;
    }
    return EXIT_OK;
}

}  // namespace

int main(int argc, char** argv) {
    g_prog = "ws_vtep";
    const Options o = parse_args(argc, argv);
    std::vector<RegWrite> writes;
    if (!o.regs.empty()) writes = read_regs(o.regs);
    try {
        PcapReader net, host;
        uint64_t net_total = 0, host_total = 0;
        if (!o.net_in.empty()) net_total = open_input(net, o.net_in);
        if (!o.host_in.empty()) host_total = open_input(host, o.host_in);
        Sim sim(o, o.net_in.empty() ? nullptr : &net, net_total,
                o.host_in.empty() ? nullptr : &host, host_total);
        if (!o.host_out.empty()) sim.decap.sink.open(o.host_out);
        if (!o.net_out.empty()) sim.encap.sink.open(o.net_out);
        if (!o.host_vni_csv.empty()) sim.vni.open_csv(o.host_vni_csv);
        if (!o.decap_latency_csv.empty()) sim.decap.match.open_csv(o.decap_latency_csv);
        if (!o.encap_latency_csv.empty()) sim.encap.match.open_csv(o.encap_latency_csv);
        if (!o.decap_stat_csv.empty()) sim.decap.match.open_stat_csv(o.decap_stat_csv);
        if (!o.encap_stat_csv.empty()) sim.encap.match.open_stat_csv(o.encap_stat_csv);
        return sim.run(writes);
    } catch (const FileError& e) {
        fprintf(stderr, "%s: error: %s\n", g_prog, e.msg.c_str());
        return EXIT_INPUT;
    } catch (const std::exception& e) {
        fprintf(stderr, "%s: internal error: %s\n", g_prog, e.what());
        return EXIT_INTERNAL;
    }
}
