// The VNI side band of a decapsulator's output (m_*_tvni, m_*_tvni_valid): constant over a
// frame's beats; one CSV row "index,vni" per whole output frame that carries a VNI (index = the
// frame's position in the output pcap). Used by ws_geneve (sim/harness.cpp, m_axis) and ws_vtep
// (sim/vtep_harness.cpp, m_host_axis).
#pragma once

#include "pcap.hpp"
#include "util.hpp"

#include <cstdint>
#include <string>

// WS_TVNI_PORT(Vni, m_axis): Vni::vni(top) = top->m_axis_tvni, Vni::valid(top) = _tvni_valid.
#define WS_TVNI_PORT(NAME, P)                                                   \
    struct NAME {                                                               \
        static constexpr const char* name = #P;                                 \
        template <class T> static auto& vni(T* t) { return t->P##_tvni; }         \
        template <class T> static auto& valid(T* t) { return t->P##_tvni_valid; } \
    }

namespace ws {

template <class Top, class Dir, class V>
class VniSideband {
public:
    explicit VniSideband(const char* port) : port_(port) {}

    void open_csv(const std::string& path) {
        csv_.open(path, 1u << 20);
        csv_.put_str("index,vni\n");
        on_ = true;
    }
    void close() {
        if (on_) csv_.close();
    }

    // After the direction's sample() of cycle c.
    inline void sample(Top* t, const Dir& d, uint64_t c) {
        using Sink = typename Dir::Sink;
        const unsigned f = d.last_flags();
        if (!(f & Sink::BEAT)) return;
        const uint32_t vni = V::vni(t) & 0xffffffu;
        const bool valid = V::valid(t) & 1u;
        if (f & Sink::FIRST) {
            cur_vni_ = vni;
            cur_valid_ = valid;
        } else if (vni != cur_vni_ || valid != cur_valid_) {
            if (issues_++ < 5)
                warn("%s protocol: %s_tvni/_tvni_valid changed within a frame (cycle %llu, output "
                     "frame %llu: %u/%u, then %u/%u)",
                     port_, port_, (unsigned long long)c, (unsigned long long)d.sink.outs_done(),
                     cur_vni_, (unsigned)cur_valid_, vni, (unsigned)valid);
        }
        if ((f & Sink::WRITTEN) && cur_valid_ && on_) {
            csv_.put_u64(d.sink.packets_out() - 1);
            csv_.put_char(',');
            csv_.put_u64(cur_vni_);
            csv_.put_char('\n');
        }
    }

    void warn_issues() const {
        if (issues_)
            warn("%llu %s beat(s) changed %s_tvni within a frame (see the first warnings above)",
                 (unsigned long long)issues_, port_, port_);
    }

private:
    const char* port_;
    BufferedFile csv_;
    bool on_ = false;
    uint32_t cur_vni_ = 0;
    bool cur_valid_ = false;
    uint64_t issues_ = 0;
};

}  // namespace ws
