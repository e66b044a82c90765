// A minimal JSON writer: objects, keys, numbers, strings, null. Output is pretty-printed with
// two-space indentation. Non-finite doubles are written as null (JSON has no NaN/Infinity).
#pragma once

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

namespace ws {

class JsonWriter {
public:
    void begin_object() {
        value_prefix();
        out_ += '{';
        stack_.push_back(0);
    }
    void end_object() {
        bool empty = stack_.back() == 0;
        stack_.pop_back();
        if (!empty) newline();
        out_ += '}';
    }
    void key(const char* k) {
        if (stack_.back()++) out_ += ',';
        newline();
        string_literal(k);
        out_ += ": ";
        after_key_ = true;
    }
    void value(uint64_t v) {
        value_prefix();
        out_ += std::to_string(v);
    }
    void value(int64_t v) {
        value_prefix();
        out_ += std::to_string(v);
    }
    void value(int v) { value((int64_t)v); }
    void value(unsigned v) { value((uint64_t)v); }
    void value(double v) {
        value_prefix();
        if (!std::isfinite(v)) {
            out_ += "null";
            return;
        }
        char buf[40];
        // Shortest form that reads back to the same double.
        for (int prec = 6; prec <= 17; ++prec) {
            snprintf(buf, sizeof buf, "%.*g", prec, v);
            if (strtod(buf, nullptr) == v) break;
        }
        std::string s = buf;
        // Keep it a JSON number that reads as a float (e.g. "250" -> "250.0").
        if (s.find_first_of(".eE") == std::string::npos) s += ".0";
        out_ += s;
    }
    void value(const char* s) {
        value_prefix();
        string_literal(s);
    }
    void null() {
        value_prefix();
        out_ += "null";
    }

    template <class T>
    void field(const char* k, T v) {
        key(k);
        value(v);
    }

    // The finished document (call after the outermost end_object()).
    std::string str() const { return out_ + "\n"; }

private:
    void value_prefix() {
        if (after_key_) {
            after_key_ = false;
            return;
        }
        if (!stack_.empty()) {  // an array element would go here; this writer has no arrays
            if (stack_.back()++) out_ += ',';
            newline();
        }
    }
    void newline() {
        out_ += '\n';
        out_.append(2 * stack_.size(), ' ');
    }
    void string_literal(const char* s) {
        out_ += '"';
        for (; *s; ++s) {
            unsigned char c = (unsigned char)*s;
            switch (c) {
            case '"': out_ += "\\\""; break;
            case '\\': out_ += "\\\\"; break;
            case '\n': out_ += "\\n"; break;
            case '\r': out_ += "\\r"; break;
            case '\t': out_ += "\\t"; break;
            default:
                if (c < 0x20) {
                    char b[8];
                    snprintf(b, sizeof b, "\\u%04x", c);
                    out_ += b;
                } else {
                    out_ += (char)c;
                }
            }
        }
        out_ += '"';
    }

    std::string out_;
    std::vector<int> stack_;
    bool after_key_ = false;
};

}  // namespace ws
