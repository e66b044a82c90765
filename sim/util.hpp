// Shared small pieces of the Verilator harnesses (ws_sim, ws_vtep): messages and exit codes,
// the command-line scanner and the options every harness has, the --regs file, a PRNG, a FIFO.
#pragma once

#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdarg>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

namespace ws {

// ------------------------------------------------------------------------------------------------
// Exit codes (sim/README.md)

constexpr int EXIT_OK = 0;
constexpr int EXIT_INTERNAL = 1;
constexpr int EXIT_INPUT = 2;     // bad command line, unreadable/invalid input, unwritable output
constexpr int EXIT_WATCHDOG = 3;  // frames pending but nothing moved for --max-idle-cycles
constexpr int EXIT_BALANCE = 4;   // counters/status/output disagree, or a DUT protocol violation
constexpr int EXIT_AXIL = 5;      // AXI4-Lite error response or no response

// ------------------------------------------------------------------------------------------------
// Messages: "<prog>: error: ..." / "<prog>: warning: ..." on stderr.

inline const char* g_prog = "ws_sim";  // set by main()

[[noreturn]] inline void die(int code, const char* f, ...) __attribute__((format(printf, 2, 3)));
inline void die(int code, const char* f, ...) {
    va_list ap;
    va_start(ap, f);
    fprintf(stderr, "%s: error: ", g_prog);
    vfprintf(stderr, f, ap);
    fputc('\n', stderr);
    va_end(ap);
    exit(code);
}

inline void warn(const char* f, ...) __attribute__((format(printf, 1, 2)));
inline void warn(const char* f, ...) {
    va_list ap;
    va_start(ap, f);
    fprintf(stderr, "%s: warning: ", g_prog);
    vfprintf(stderr, f, ap);
    fputc('\n', stderr);
    va_end(ap);
}

inline double now_seconds() {
    using namespace std::chrono;
    return duration<double>(steady_clock::now().time_since_epoch()).count();
}

// "a", "a or b", "a, b or c" (for messages naming several ports).
inline std::string join_or(const std::vector<std::string>& v) {
    std::string s;
    for (size_t i = 0; i < v.size(); ++i) {
        if (i) s += (i + 1 == v.size()) ? " or " : ", ";
        s += v[i];
    }
    return s;
}

// ------------------------------------------------------------------------------------------------
// Command line

inline double parse_double(const std::string& flag, const std::string& v) {
    char* end = nullptr;
    errno = 0;
    double d = strtod(v.c_str(), &end);
    if (v.empty() || *end || errno || !std::isfinite(d))
        die(EXIT_INPUT, "%s: '%s' is not a number", flag.c_str(), v.c_str());
    return d;
}

inline uint64_t parse_u64(const std::string& flag, const std::string& v) {
    char* end = nullptr;
    errno = 0;
    if (v.empty() || v[0] == '-') die(EXIT_INPUT, "%s: '%s' is not a non-negative integer", flag.c_str(), v.c_str());
    unsigned long long x = strtoull(v.c_str(), &end, 0);
    if (*end || errno) die(EXIT_INPUT, "%s: '%s' is not a non-negative integer", flag.c_str(), v.c_str());
    return x;
}

// Walks argv: `--flag value` and `--flag=value`; -h/--help prints the usage and exits 0.
//   ArgScanner a(argc, argv, usage);
//   while (a.next()) { if (a.flag() == "--x") x = a.value(); else ... else a.unknown(); }
class ArgScanner {
public:
    ArgScanner(int argc, char** argv, const char* usage) : argc_(argc), argv_(argv), usage_(usage) {}

    bool next() {
        if (++i_ >= argc_) return false;
        flag_ = argv_[i_];
        val_.clear();
        has_val_ = false;
        if (flag_ == "-h" || flag_ == "--help") {
            fputs(usage_, stdout);
            exit(EXIT_OK);
        }
        if (flag_.rfind("--", 0) == 0) {
            size_t eq = flag_.find('=');
            if (eq != std::string::npos) {
                val_ = flag_.substr(eq + 1);
                flag_ = flag_.substr(0, eq);
                has_val_ = true;
            }
        }
        return true;
    }
    const std::string& flag() const { return flag_; }
    // The option's value (the `=value` part or the next argument).
    std::string value() {
        if (has_val_) return val_;
        if (i_ + 1 >= argc_) die(EXIT_INPUT, "option %s needs a value (see --help)", flag_.c_str());
        return argv_[++i_];
    }
    // For a flag without a value.
    void no_value() const {
        if (has_val_) die(EXIT_INPUT, "option %s takes no value", flag_.c_str());
    }
    [[noreturn]] void unknown() const { die(EXIT_INPUT, "unknown option '%s' (see --help)", argv_[i_]); }

private:
    int argc_;
    char** argv_;
    const char* usage_;
    int i_ = 0;
    std::string flag_, val_;
    bool has_val_ = false;
};

// Options every harness has.
struct CommonOptions {
    std::string json, regs;
    double clock_mhz = 250.0;
    double line_rate_gbps = 10.0;
    double idle_prob = 0.0, stall_prob = 0.0;
    uint64_t seed = 1;
    bool progress = false;
    uint64_t max_idle_cycles = 100000;
    bool skip_idle = true;

    // Takes the scanner's current flag if it is a common one; false otherwise.
    bool parse(ArgScanner& a) {
        const std::string& f = a.flag();
        if (f == "--json") json = a.value();
        else if (f == "--regs") regs = a.value();
        else if (f == "--clock-mhz") clock_mhz = parse_double(f, a.value());
        else if (f == "--line-rate-gbps") line_rate_gbps = parse_double(f, a.value());
        else if (f == "--idle-prob") idle_prob = parse_double(f, a.value());
        else if (f == "--stall-prob") stall_prob = parse_double(f, a.value());
        else if (f == "--seed") seed = parse_u64(f, a.value());
        else if (f == "--max-idle-cycles") max_idle_cycles = parse_u64(f, a.value());
        else if (f == "--progress") a.no_value(), progress = true;
        else if (f == "--no-skip-idle") a.no_value(), skip_idle = false;
        else return false;
        return true;
    }
    // After the harness's own checks of required options.
    void validate() const {
        if (json.empty()) die(EXIT_INPUT, "missing --json REPORT.json (see --help)");
        if (!(clock_mhz > 0)) die(EXIT_INPUT, "--clock-mhz: must be > 0 (got %g)", clock_mhz);
        if (line_rate_gbps < 0) die(EXIT_INPUT, "--line-rate-gbps: must be >= 0 (got %g)", line_rate_gbps);
        if (idle_prob < 0 || idle_prob >= 1)
            die(EXIT_INPUT, "--idle-prob: must be in [0, 1) (got %g)", idle_prob);
        if (stall_prob < 0 || stall_prob > 1)
            die(EXIT_INPUT, "--stall-prob: must be in [0, 1] (got %g)", stall_prob);
        if (max_idle_cycles == 0) die(EXIT_INPUT, "--max-idle-cycles: must be > 0");
    }
};

// ------------------------------------------------------------------------------------------------
// --regs: one AXI4-Lite write per line, "0xADDR 0xVALUE", '#' comments.

struct RegWrite {
    uint32_t addr, value;
    int line;
};

inline std::vector<RegWrite> read_regs(const std::string& path) {
    FILE* f = fopen(path.c_str(), "r");
    if (!f) die(EXIT_INPUT, "%s: cannot open for reading: %s", path.c_str(), strerror(errno));
    std::vector<RegWrite> out;
    char line[4096];
    int ln = 0;
    while (fgets(line, sizeof line, f)) {
        ++ln;
        if (char* h = strchr(line, '#')) *h = 0;
        char* tok[3] = {nullptr, nullptr, nullptr};
        int nt = 0;
        for (char* p = strtok(line, " \t\r\n,"); p && nt < 3; p = strtok(nullptr, " \t\r\n,"))
            tok[nt++] = p;
        if (nt == 0) continue;
        if (nt != 2)
            die(EXIT_INPUT, "%s:%d: expected \"0xADDR 0xVALUE\", found %d field(s)", path.c_str(), ln, nt);
        unsigned long long v[2];
        for (int k = 0; k < 2; ++k) {
            char* end = nullptr;
            errno = 0;
            v[k] = strtoull(tok[k], &end, 0);
            if (*end || errno || tok[k][0] == '-')
                die(EXIT_INPUT, "%s:%d: '%s' is not a number", path.c_str(), ln, tok[k]);
        }
        if (v[0] > 0xffff) die(EXIT_INPUT, "%s:%d: address %s is beyond the 16-bit AXI4-Lite space", path.c_str(), ln, tok[0]);
        if (v[0] & 3) die(EXIT_INPUT, "%s:%d: address %s is not 32-bit aligned", path.c_str(), ln, tok[0]);
        if (v[1] > 0xffffffffull) die(EXIT_INPUT, "%s:%d: value %s does not fit in 32 bits", path.c_str(), ln, tok[1]);
        out.push_back({(uint32_t)v[0], (uint32_t)v[1], ln});
    }
    if (ferror(f)) die(EXIT_INPUT, "%s: read error: %s", path.c_str(), strerror(errno));
    fclose(f);
    return out;
}

// ------------------------------------------------------------------------------------------------
// Small utilities

// xoshiro256** seeded through splitmix64; hit(p) is true with probability p (53-bit resolution).
class Rng {
public:
    explicit Rng(uint64_t seed) {
        for (auto& w : s_) w = splitmix(seed);
    }
    uint64_t next() {
        const uint64_t r = rotl(s_[1] * 5, 7) * 9, t = s_[1] << 17;
        s_[2] ^= s_[0];
        s_[3] ^= s_[1];
        s_[1] ^= s_[2];
        s_[0] ^= s_[3];
        s_[2] ^= t;
        s_[3] = rotl(s_[3], 45);
        return r;
    }
    bool hit(double p) { return (double)(next() >> 11) * 0x1.0p-53 < p; }

private:
    static uint64_t rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }
    static uint64_t splitmix(uint64_t& x) {
        uint64_t z = (x += 0x9e3779b97f4a7c15ull);
        z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
        z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
        return z ^ (z >> 31);
    }
    uint64_t s_[4];
};

// FIFO that grows by doubling and never shrinks (no allocation in the steady state).
template <class T>
class Ring {
public:
    Ring() : v_(64) {}
    bool empty() const { return head_ == tail_; }
    size_t size() const { return tail_ - head_; }
    void push(const T& x) {
        if (tail_ - head_ == v_.size()) grow();
        v_[tail_++ & (v_.size() - 1)] = x;
    }
    T& front() { return v_[head_ & (v_.size() - 1)]; }
    T pop() { return v_[head_++ & (v_.size() - 1)]; }

private:
    void grow() {
        std::vector<T> n(v_.size() * 2);
        size_t k = 0;
        for (size_t i = head_; i != tail_; ++i) n[k++] = v_[i & (v_.size() - 1)];
        v_.swap(n);
        head_ = 0;
        tail_ = k;
    }
    std::vector<T> v_;
    size_t head_ = 0, tail_ = 0;
};

// The bytes of a verilated port: QData or VlWide<N> (whose only member is the word array).
template <class T>
inline uint8_t* bytes_of(T& port) {
    return reinterpret_cast<uint8_t*>(&port);
}

}  // namespace ws
