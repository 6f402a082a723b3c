#include "io/json.hpp"

#include <cmath>
#include <cstdio>
#include <stdexcept>

#include "io/text.hpp"

namespace shwa::io {

std::string json_string(std::string_view s) {
  std::string out = "\"";
  for (const char ch : s) {
    const auto c = static_cast<unsigned char>(ch);
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\r': out += "\\r"; break;
      case '\t': out += "\\t"; break;
      case '\b': out += "\\b"; break;
      case '\f': out += "\\f"; break;
      default:
        if (c < 0x20) {
          char buf[8];
          std::snprintf(buf, sizeof buf, "\\u%04x", c);
          out += buf;
        } else {
          out += ch;
        }
    }
  }
  return out + "\"";
}

void JsonWriter::newline() {
  out_ += '\n';
  out_.append(2 * stack_.size(), ' ');
}

// Everything a value needs before it: a comma after a sibling, a line break, and a check that a
// value may come here at all.
void JsonWriter::before_value() {
  if (done_) throw std::logic_error("JsonWriter: a value after the end of the document");
  if (stack_.empty()) return;
  Level& top = stack_.back();
  if (top.object) {
    if (!top.key_done) throw std::logic_error("JsonWriter: a value in an object needs a key first");
    top.key_done = false;
    return;
  }
  if (!top.empty) out_ += ',';
  top.empty = false;
  newline();
}

JsonWriter& JsonWriter::raw(const std::string& text) {
  before_value();
  out_ += text;
  if (stack_.empty()) done_ = true;
  return *this;
}

JsonWriter& JsonWriter::key(std::string_view name) {
  if (stack_.empty() || !stack_.back().object || stack_.back().key_done)
    throw std::logic_error("JsonWriter: a key outside an object or twice in a row");
  Level& top = stack_.back();
  if (!top.empty) out_ += ',';
  top.empty = false;
  top.key_done = true;
  newline();
  out_ += json_string(name) + ": ";
  return *this;
}

JsonWriter& JsonWriter::begin_object() {
  before_value();
  out_ += '{';
  stack_.push_back({true});
  return *this;
}

JsonWriter& JsonWriter::begin_array() {
  before_value();
  out_ += '[';
  stack_.push_back({false});
  return *this;
}

JsonWriter& JsonWriter::end_object() {
  if (stack_.empty() || !stack_.back().object || stack_.back().key_done)
    throw std::logic_error("JsonWriter: end_object without a matching begin_object, or after a key");
  const bool empty = stack_.back().empty;
  stack_.pop_back();
  if (!empty) newline();
  out_ += '}';
  if (stack_.empty()) done_ = true;
  return *this;
}

JsonWriter& JsonWriter::end_array() {
  if (stack_.empty() || stack_.back().object)
    throw std::logic_error("JsonWriter: end_array without a matching begin_array");
  const bool empty = stack_.back().empty;
  stack_.pop_back();
  if (!empty) newline();
  out_ += ']';
  if (stack_.empty()) done_ = true;
  return *this;
}

JsonWriter& JsonWriter::value(double x) { return raw(std::isfinite(x) ? format_double(x) : "null"); }
JsonWriter& JsonWriter::value(bool b) { return raw(b ? "true" : "false"); }
JsonWriter& JsonWriter::value(std::string_view s) { return raw(json_string(s)); }
JsonWriter& JsonWriter::null() { return raw("null"); }

std::string JsonWriter::str() const {
  if (!done_) throw std::logic_error("JsonWriter: the document is incomplete");
  return out_ + "\n";
}

}  // namespace shwa::io
