// ws_capture_cpu: the real CPU cost of consuming a capture ring on this machine (docs/host.md,
// "CPU cost of consuming the rings"), in ns per frame on one core, per frame length.
//
// A ring is filled with packed records exactly as dma_ring_writer lays them out (16-byte
// header: u16 length, u8 queue, u8 info, u32 hash, u64 timestamp; the frame; zeros to 8
// bytes), then one core consumes it the way the harness's host driver does
// (sim/capture_host.hpp): from CONS up to PROD it reads each header, takes the length, and
// per mode (prefetching 1 KiB ahead of CONS, as DPDK-style drivers do)
//   parse: reads the header only (a consumer that hands records on in place), or
//   copy:  also copies the frame with a 16-byte pcap record header into an output buffer (a
//          capture to a file, the I/O itself not counted: the buffer is reused when full),
// then advances CONS by 16 + the length rounded up to 8 and, once per batch (the records up to
// the PROD it read), stores CONS (the MMIO write's place; a store, not timed as a bus write).
// The ring is larger than the last-level cache unless --ring-bytes says otherwise, so records
// come from memory as they would after a DMA (without DDIO).
//
// Output: one JSON object on stdout: per length, frames consumed, ns per frame of the thread's
// CPU time (the fastest of --repeat passes, each at least --min-ms of CPU time: the least
// disturbed by other processes; their cache and memory traffic still counts).

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include <time.h>

namespace {

constexpr unsigned kHdr = 16;
constexpr size_t kPrefetch = 1024;   // bytes ahead of CONS (within the ring: the hint may not fault)

struct Opts {
    std::vector<unsigned> lengths{60, 61, 124, 252, 508, 1020, 1514};   // bus bytes (no FCS)
    size_t ring_bytes = size_t(64) << 20;
    unsigned batch = 32;          // records a core takes per PROD it reads
    unsigned repeat = 5;
    double min_ms = 100;
};

[[noreturn]] void usage(const char* msg) {
    fprintf(stderr, "ws_capture_cpu: %s\nusage: ws_capture_cpu [--lengths N,N,..] [--ring-bytes N] "
                    "[--batch N] [--repeat N] [--min-ms F]\n", msg);
    exit(1);
}

// Records of `len` frame bytes back to back from offset 0; returns the bytes they fill (a
// whole number of records; the ring's tail beyond it is not used, so no record wraps: a
// wrapping record costs two copies instead of one, a rounding error at these ring sizes)
size_t fill(std::vector<uint8_t>& ring, unsigned len, uint64_t* n_rec) {
    const size_t rec = kHdr + ((len + 7u) & ~7u);
    const size_t n = ring.size() / rec;
    uint64_t x = 0x9e3779b97f4a7c15ull;
    for (size_t i = 0; i < n; ++i) {
        uint8_t* p = ring.data() + i * rec;
        const uint16_t l = (uint16_t)len;
        const uint32_t hash = (uint32_t)(x >> 17);
        const uint64_t ts = 1000 * i;
        memcpy(p, &l, 2);
        p[2] = (uint8_t)(i & 15);
        p[3] = 1;
        memcpy(p + 4, &hash, 4);
        memcpy(p + 8, &ts, 8);
        for (unsigned b = 0; b < len; b += 8) {
            x ^= x << 13; x ^= x >> 7; x ^= x << 17;
            memcpy(p + kHdr + b, &x, std::min(8u, len - b));
        }
        memset(p + kHdr + len, 0, rec - kHdr - len);
    }
    *n_rec = n;
    return n * rec;
}

volatile uint32_t g_cons_reg;   // the consumer register's stand-in
volatile uint64_t g_sink;

// One pass over the ring's records; returns the frames consumed
uint64_t pass(const uint8_t* ring, size_t used, unsigned batch, bool copy, std::vector<uint8_t>& out) {
    uint64_t frames = 0, acc = 0;
    size_t cons = 0, o = 0;
    while (cons < used) {
        // the PROD this batch reads: `batch` records on, or the end
        size_t prod = cons;
        for (unsigned k = 0; k < batch && prod < used; ++k) {
            uint16_t l;
            memcpy(&l, ring + prod, 2);
            prod += kHdr + ((l + 7u) & ~7u);
        }
        while (cons < prod) {
            const uint8_t* h = ring + cons;
            // the records ahead are fetched while this one is handled (as a DPDK driver
            // prefetches its descriptors): a consumer is then bound by bandwidth, not latency
            __builtin_prefetch(h + kPrefetch);
            __builtin_prefetch(h + kPrefetch + 64);
            uint16_t len;
            uint64_t ts;
            memcpy(&len, h, 2);
            memcpy(&ts, h + 8, 8);
            if (copy) {
                if (o + kHdr + len > out.size()) o = 0;      // the "file" written out
                const uint32_t rec[4] = {(uint32_t)(ts / 1000000000u), (uint32_t)(ts % 1000000000u),
                                         len, len};
                memcpy(out.data() + o, rec, kHdr);
                memcpy(out.data() + o + kHdr, h + kHdr, len);
                o += kHdr + len;
            } else {
                acc += ts ^ h[2] ^ h[3];
            }
            cons += kHdr + ((len + 7u) & ~7u);
            ++frames;
        }
        g_cons_reg = (uint32_t)cons;
    }
    g_sink = acc + o;
    return frames;
}

// The thread's CPU time: on a shared machine the time it was descheduled is not its cost
double now_ns() {
    timespec t;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return (double)t.tv_sec * 1e9 + (double)t.tv_nsec;
}

}  // namespace

int main(int argc, char** argv) {
    Opts o;
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        if (i + 1 >= argc) usage(("missing value after " + a).c_str());
        const char* v = argv[++i];
        if (a == "--lengths") {
            o.lengths.clear();
            for (const char* p = v; *p;) {
                char* e;
                const unsigned long n = strtoul(p, &e, 10);
                if (e == p || n < 14 || n > 16000) usage("--lengths: 14..16000 each");
                o.lengths.push_back((unsigned)n);
                p = *e == ',' ? e + 1 : e;
                if (*e && *e != ',') usage("--lengths: comma-separated numbers");
            }
        } else if (a == "--ring-bytes") {
            o.ring_bytes = strtoull(v, nullptr, 0);
            if (o.ring_bytes < 65536) usage("--ring-bytes: at least 65536");
        } else if (a == "--batch") {
            o.batch = (unsigned)atoi(v);
            if (o.batch < 1) usage("--batch: at least 1");
        } else if (a == "--repeat") {
            o.repeat = (unsigned)atoi(v);
            if (o.repeat < 1) usage("--repeat: at least 1");
        } else if (a == "--min-ms") {
            o.min_ms = atof(v);
            if (!(o.min_ms > 0)) usage("--min-ms: positive");
        } else {
            usage(("unknown option " + a).c_str());
        }
    }
    std::vector<uint8_t> ring(o.ring_bytes), out(size_t(4) << 20);
    printf("{\"ring_bytes\": %zu, \"batch\": %u, \"repeat\": %u, \"min_ms\": %g, \"lengths\": [",
           o.ring_bytes, o.batch, o.repeat, o.min_ms);
    for (size_t li = 0; li < o.lengths.size(); ++li) {
        const unsigned len = o.lengths[li];
        uint64_t n_rec;
        const size_t used = fill(ring, len, &n_rec);
        printf("%s{\"frame_bytes\": %u, \"record_bytes\": %u, \"records_in_ring\": %llu", li ? ", " : "",
               len, kHdr + ((len + 7u) & ~7u), (unsigned long long)n_rec);
        for (int copy = 0; copy < 2; ++copy) {
            double best = 1e300;
            uint64_t total = 0;
            // warm the page tables; every record is consumed once a pass
            if (pass(ring.data(), used, o.batch, copy, out) != n_rec) {
                fprintf(stderr, "ws_capture_cpu: a pass did not consume the %llu records\n",
                        (unsigned long long)n_rec);
                return 2;
            }
            for (unsigned r = 0; r < o.repeat; ++r) {
                uint64_t frames = 0;
                const double t0 = now_ns();
                double t1;
                do {
                    frames += pass(ring.data(), used, o.batch, copy, out);
                    t1 = now_ns();
                } while (t1 - t0 < o.min_ms * 1e6);
                best = std::min(best, (t1 - t0) / (double)frames);
                total += frames;
            }
            printf(", \"%s_ns_per_frame\": %.3f, \"%s_frames\": %llu", copy ? "copy" : "parse", best,
                   copy ? "copy" : "parse", (unsigned long long)total);
        }
        printf("}");
        fflush(stdout);
    }
    printf("]}\n");
    return 0;
}
