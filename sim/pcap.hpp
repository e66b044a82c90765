// libpcap reading (classic pcap and pcapng) and writing for the Verilator harness.
//
// PcapReader streams a capture from disk through a large buffer: validate() walks every record
// header once (so a bad file is rejected before any simulation), then next() hands out frames one
// at a time while the simulation runs. Memory use does not grow with the capture's size.
// pcapng: the packets of enhanced, simple and obsolete packet blocks, of every section and
// interface (each interface must be Ethernet; an if_fcslen FCS is removed); other blocks skipped.
// PcapWriter buffers records and writes them in large blocks.
//
// Errors are thrown as ws::FileError with a message that already names the file.
#pragma once

#include <algorithm>
#include <cerrno>
#include <cstdarg>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>
#include <sys/stat.h>
#include <vector>

namespace ws {

struct FileError {
    std::string msg;
};

inline std::string fmt(const char* f, ...) __attribute__((format(printf, 1, 2)));
inline std::string fmt(const char* f, ...) {
    char buf[1024];
    va_list ap;
    va_start(ap, f);
    vsnprintf(buf, sizeof buf, f, ap);
    va_end(ap);
    return buf;
}

// Largest frame the harness accepts: the block reports input lengths in 16 bits (m_stat_len).
constexpr uint32_t kMaxFrame = 65535;

class PcapReader {
public:
    PcapReader() = default;
    PcapReader(const PcapReader&) = delete;
    PcapReader& operator=(const PcapReader&) = delete;
    ~PcapReader() {
        if (f_) fclose(f_);
    }

    // Opens `path` and checks the global header. Throws FileError.
    void open(const std::string& path) {
        path_ = path;
        f_ = fopen(path.c_str(), "rb");
        if (!f_) fail(fmt("cannot open for reading: %s", strerror(errno)));
        struct stat st;
        if (fstat(fileno(f_), &st) == 0) file_size_ = (uint64_t)st.st_size;
        buf_.resize(kBuf);
        uint8_t h[24];
        size_t got = raw_read(h, sizeof h);
        if (got < 4) fail(fmt("too short to be a pcap file (%zu bytes)", got));
        uint32_t magic = le32(h);
        if (magic == 0xa1b2c3d4u) {
            swap_ = false, nsec_ = false;
        } else if (magic == 0xa1b23c4du) {
            swap_ = false, nsec_ = true;
        } else if (magic == 0xd4c3b2a1u) {
            swap_ = true, nsec_ = false;
        } else if (magic == 0x4d3cb2a1u) {
            swap_ = true, nsec_ = true;
        } else if (magic == 0x0a0d0d0au) {
            ng_ = true;
            if (fseeko(f_, 0, SEEK_SET) != 0) fail(fmt("cannot seek: %s", strerror(errno)));
            data_start_ = offset_ = 0;
            pos_ = end_ = 0;
            return;
        } else {
            fail(fmt("bad magic number 0x%08x: not a classic libpcap file", magic));
        }
        if (got < sizeof h) fail(fmt("truncated global header (%zu of 24 bytes)", got));
        uint16_t major = u16(h + 4);
        if (major != 2) fail(fmt("unsupported pcap version %u.%u", major, u16(h + 6)));
        uint32_t lt = u32(h + 20);
        linktype_ = lt & 0xffffu;
        if (linktype_ != 1)
            fail(fmt("link type %u is not supported (only 1, Ethernet)", linktype_));
        if (lt & 0x10000000u)
            fail("records carry an FCS (link-type FCS flag set); frames without FCS are expected");
        data_start_ = 24;
        offset_ = 24;
    }

    // Walks every record header, checking that each record is complete and usable.
    // Returns the number of records and rewinds to the first one. Throws FileError.
    uint64_t validate() {
        uint64_t n = 0;
        snapped_ = 0;
        for (;;) {
            uint32_t len;
            if (!next_impl(nullptr, len, n)) break;
            ++n;
        }
        rewind_records();
        return n;
    }

    // Copies the next frame into `dst` (room for kMaxFrame bytes) and sets `len`.
    // Returns false after the last record.
    bool next(uint8_t* dst, uint32_t& len) { return next_impl(dst, len, index_++); }

    uint64_t snapped() const { return snapped_; }
    const std::string& path() const { return path_; }

private:
    static constexpr size_t kBuf = 1u << 20;

    [[noreturn]] void fail(const std::string& m) { throw FileError{path_ + ": " + m}; }

    static uint32_t le32(const uint8_t* p) {
        uint32_t v;
        memcpy(&v, p, 4);
        return v;
    }
    uint32_t u32(const uint8_t* p) const {
        uint32_t v = le32(p);
        return swap_ ? __builtin_bswap32(v) : v;
    }
    uint16_t u16(const uint8_t* p) const {
        uint16_t v;
        memcpy(&v, p, 2);
        return swap_ ? __builtin_bswap16(v) : v;
    }

    size_t raw_read(uint8_t* dst, size_t n) { return fread(dst, 1, n, f_); }

    // Makes at least `need` bytes available at pos_ unless the file ends first.
    // Returns the number available (may be < need at end of file).
    size_t fill(size_t need) {
        size_t avail = end_ - pos_;
        if (avail >= need) return avail;
        if (pos_ > 0) {
            memmove(buf_.data(), buf_.data() + pos_, avail);
            pos_ = 0;
            end_ = avail;
        }
        while (end_ < need) {
            size_t got = fread(buf_.data() + end_, 1, buf_.size() - end_, f_);
            if (got == 0) {
                if (ferror(f_)) fail(fmt("read error: %s", strerror(errno)));
                break;
            }
            end_ += got;
        }
        return end_ - pos_;
    }

    void rewind_records() {
        if (fseeko(f_, (off_t)data_start_, SEEK_SET) != 0)
            fail(fmt("cannot seek: %s", strerror(errno)));
        pos_ = end_ = 0;
        offset_ = data_start_;
        index_ = 0;
    }

    // pcapng: the next packet block's frame (skipping the other blocks).
    bool next_ng(uint8_t* dst, uint32_t& len, uint64_t idx) {
        for (;;) {
            size_t avail = fill(12);
            if (avail == 0) return false;
            if (avail < 12)
                fail(fmt("truncated pcapng: a block at byte offset %llu has %zu bytes, less than "
                         "a block header", (unsigned long long)offset_, avail));
            const uint8_t* b = buf_.data() + pos_;
            if (le32(b) == 0x0a0d0d0au) {  // section header: its byte order
                const uint32_t bom = le32(b + 8);
                if (bom == 0x1a2b3c4du) swap_ = false;
                else if (bom == 0x4d3c2b1au) swap_ = true;
                else fail(fmt("broken pcapng: section header at byte offset %llu has the "
                              "byte-order magic 0x%08x", (unsigned long long)offset_, bom));
                ifaces_.clear();
            }
            const uint32_t type = u32(b), blen = u32(b + 4);
            if (blen < 12 || blen % 4 || blen > (1u << 26))
                fail(fmt("broken pcapng: the block at byte offset %llu claims %u bytes",
                         (unsigned long long)offset_, blen));
            if (blen > buf_.size()) buf_.resize(blen);  // a large non-packet block
            avail = fill(blen);
            if (avail < blen)
                fail(fmt("truncated pcapng: the block at byte offset %llu claims %u bytes, %zu "
                         "are left", (unsigned long long)offset_, blen, avail));
            b = buf_.data() + pos_;
            const uint8_t* body = b + 8;
            const size_t body_len = blen - 12;
            bool packet = false;
            uint32_t iid = 0, incl = 0, orig = 0;
            const uint8_t* data = nullptr;
            if (type == 1) {  // interface description
                if (body_len < 8) fail(fmt("broken pcapng: short interface block at byte offset %llu",
                                           (unsigned long long)offset_));
                Iface f;
                f.linktype = u16(body);
                f.snaplen = u32(body + 4);
                for (size_t o = 8; o + 4 <= body_len;) {  // options: if_fcslen (13)
                    const uint16_t code = u16(body + o), olen = u16(body + o + 2);
                    if (code == 0) break;
                    if (code == 13 && olen >= 1 && o + 4 < body_len) f.fcs = body[o + 4];
                    o += 4 + ((olen + 3u) & ~3u);
                }
                ifaces_.push_back(f);
            } else if (type == 6 || type == 2) {  // enhanced / obsolete packet
                if (body_len < 20) fail(fmt("broken pcapng: short packet block at byte offset %llu",
                                            (unsigned long long)offset_));
                iid = type == 6 ? u32(body) : u16(body);
                incl = u32(body + 12);
                orig = u32(body + 16);
                data = body + 20;
                if (20 + (size_t)incl > body_len)
                    fail(fmt("truncated record %llu at byte offset %llu: its block holds %zu of "
                             "its %u bytes", (unsigned long long)idx, (unsigned long long)offset_,
                             body_len - 20, incl));
                packet = true;
            } else if (type == 3) {  // simple packet
                if (body_len < 4) fail(fmt("broken pcapng: short packet block at byte offset %llu",
                                           (unsigned long long)offset_));
                orig = u32(body);
                incl = (uint32_t)std::min<size_t>(orig, body_len - 4);
                if (!ifaces_.empty() && ifaces_[0].snaplen) incl = std::min(incl, ifaces_[0].snaplen);
                data = body + 4;
                packet = true;
            }
            const uint64_t at = offset_;
            pos_ += blen;
            offset_ += blen;
            if (!packet) continue;
            if (iid >= ifaces_.size())
                fail(fmt("broken pcapng: record %llu at byte offset %llu names interface %u, the "
                         "section describes %zu", (unsigned long long)idx, (unsigned long long)at,
                         iid, ifaces_.size()));
            const Iface& f = ifaces_[iid];
            if (f.linktype != 1)
                fail(fmt("record %llu comes from an interface of link type %u; only 1, Ethernet, "
                         "is supported", (unsigned long long)idx, f.linktype));
            if (f.fcs && incl == orig && incl > f.fcs) incl -= f.fcs, orig -= f.fcs;
            if (incl == 0)
                fail(fmt("record %llu at byte offset %llu is empty (0 bytes)",
                         (unsigned long long)idx, (unsigned long long)at));
            if (incl > kMaxFrame)
                fail(fmt("record %llu at byte offset %llu is %u bytes; the most the block "
                         "accepts is %u", (unsigned long long)idx, (unsigned long long)at, incl,
                         kMaxFrame));
            if (!dst && incl < orig) ++snapped_;
            if (dst) memcpy(dst, data, incl);
            len = incl;
            return true;
        }
    }

    bool next_impl(uint8_t* dst, uint32_t& len, uint64_t idx) {
        if (ng_) return next_ng(dst, len, idx);
        size_t avail = fill(16);
        if (avail == 0) return false;
        if (avail < 16)
            fail(fmt("truncated record header: record %llu at byte offset %llu has %zu of 16 "
                     "header bytes",
                     (unsigned long long)idx, (unsigned long long)offset_, avail));
        const uint8_t* h = buf_.data() + pos_;
        uint32_t incl = u32(h + 8), orig = u32(h + 12);
        if (incl == 0)
            fail(fmt("record %llu at byte offset %llu is empty (0 bytes)",
                     (unsigned long long)idx, (unsigned long long)offset_));
        if (incl > kMaxFrame) {
            // A huge length is usually a sign of a corrupt file: say whether data is even there.
            uint64_t left = file_size_ > offset_ + 16 ? file_size_ - offset_ - 16 : 0;
            if (file_size_ && incl > left)
                fail(fmt("truncated record %llu at byte offset %llu: header says %u bytes, only "
                         "%llu left in the file",
                         (unsigned long long)idx, (unsigned long long)offset_, incl,
                         (unsigned long long)left));
            fail(fmt("record %llu at byte offset %llu is %u bytes; the most the block accepts is "
                     "%u",
                     (unsigned long long)idx, (unsigned long long)offset_, incl, kMaxFrame));
        }
        if (!dst && incl < orig) ++snapped_;
        avail = fill(16 + (size_t)incl);
        if (avail < 16 + (size_t)incl)
            fail(fmt("truncated record %llu at byte offset %llu: header says %u bytes, only %zu "
                     "left in the file",
                     (unsigned long long)idx, (unsigned long long)offset_, incl, avail - 16));
        if (dst) memcpy(dst, buf_.data() + pos_ + 16, incl);
        pos_ += 16 + (size_t)incl;
        offset_ += 16 + (uint64_t)incl;
        len = incl;
        return true;
    }

    std::string path_;
    FILE* f_ = nullptr;
    std::vector<uint8_t> buf_;
    size_t pos_ = 0, end_ = 0;
    uint64_t offset_ = 0, data_start_ = 24, file_size_ = 0, index_ = 0, snapped_ = 0;
    bool swap_ = false, nsec_ = false;
    uint32_t linktype_ = 0;
    // pcapng
    struct Iface {
        uint32_t linktype = 0, snaplen = 0, fcs = 0;
    };
    bool ng_ = false;
    std::vector<Iface> ifaces_;
};

// Buffered output file: raw bytes, with error checks at every flush and at close.
class BufferedFile {
public:
    BufferedFile() = default;
    BufferedFile(const BufferedFile&) = delete;
    BufferedFile& operator=(const BufferedFile&) = delete;
    ~BufferedFile() {
        if (f_) fclose(f_);
    }

    void open(const std::string& path, size_t bufsize = 4u << 20) {
        path_ = path;
        f_ = fopen(path.c_str(), "wb");
        if (!f_) throw FileError{path + ": cannot open for writing: " + strerror(errno)};
        buf_.resize(bufsize);
        n_ = 0;
    }
    bool is_open() const { return f_ != nullptr; }

    void put(const void* p, size_t len) {
        if (n_ + len > buf_.size()) {
            flush();
            if (len > buf_.size()) {
                write_raw(p, len);
                return;
            }
        }
        memcpy(buf_.data() + n_, p, len);
        n_ += len;
    }
    void put_char(char c) {
        if (n_ == buf_.size()) flush();
        buf_[n_++] = (uint8_t)c;
    }
    void put_str(const char* s) { put(s, strlen(s)); }
    void put_u64(uint64_t v) {
        char tmp[24];
        int i = 24;
        do {
            tmp[--i] = (char)('0' + v % 10);
            v /= 10;
        } while (v);
        put(tmp + i, (size_t)(24 - i));
    }
    void put_i64(int64_t v) {
        if (v < 0) {
            put_char('-');
            put_u64((uint64_t)0 - (uint64_t)v);
        } else {
            put_u64((uint64_t)v);
        }
    }

    void flush() {
        if (n_) write_raw(buf_.data(), n_);
        n_ = 0;
    }
    void close() {
        if (!f_) return;
        flush();
        FILE* f = f_;
        f_ = nullptr;
        if (fclose(f) != 0) throw FileError{path_ + ": write failed: " + strerror(errno)};
    }
    const std::string& path() const { return path_; }

private:
    void write_raw(const void* p, size_t len) {
        if (fwrite(p, 1, len, f_) != len)
            throw FileError{path_ + ": write failed: " + strerror(errno)};
    }
    std::string path_;
    FILE* f_ = nullptr;
    std::vector<uint8_t> buf_;
    size_t n_ = 0;
};

// Writes a little-endian, nanosecond, link-type-1 pcap.
class PcapWriter {
public:
    void open(const std::string& path) {
        out_.open(path);
        uint8_t h[24];
        put32(h, 0xa1b23c4du);  // nanosecond timestamps
        put16(h + 4, 2);
        put16(h + 6, 4);
        put32(h + 8, 0);
        put32(h + 12, 0);
        put32(h + 16, 262144);  // snap length
        put32(h + 20, 1);       // LINKTYPE_ETHERNET
        out_.put(h, sizeof h);
    }
    void write(uint64_t ns, const uint8_t* data, uint32_t len) {
        uint8_t h[16];
        put32(h, (uint32_t)(ns / 1000000000u));
        put32(h + 4, (uint32_t)(ns % 1000000000u));
        put32(h + 8, len);
        put32(h + 12, len);
        out_.put(h, sizeof h);
        out_.put(data, len);
    }
    void close() { out_.close(); }

private:
    static void put32(uint8_t* p, uint32_t v) { memcpy(p, &v, 4); }  // host is little-endian
    static void put16(uint8_t* p, uint16_t v) { memcpy(p, &v, 2); }
    BufferedFile out_;
};

static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__, "the harness assumes a little-endian host");

}  // namespace ws
