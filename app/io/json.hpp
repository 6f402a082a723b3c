#pragma once
// A small streaming JSON writer for the run summary:
//
//   JsonWriter j;
//   j.begin_object().key("steps").value(1200).key("dt").begin_array().value(0.1).value(0.2).end_array().end_object();
//   write_file_atomically("summary.json", j.str());
//
// Numbers keep full precision (shortest round-trip form); NaN and infinities, which JSON lacks,
// are written as null. Strings are escaped; UTF-8 passes through. Misuse (a value where a key is
// due, unbalanced ends) throws std::logic_error.

#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

namespace shwa::io {

class JsonWriter {
 public:
  JsonWriter& begin_object();
  JsonWriter& end_object();
  JsonWriter& begin_array();
  JsonWriter& end_array();
  JsonWriter& key(std::string_view name);

  JsonWriter& value(double x);
  JsonWriter& value(bool b);
  JsonWriter& value(std::string_view s);
  JsonWriter& value(const char* s) { return value(std::string_view(s)); }
  template <class T, std::enable_if_t<std::is_integral_v<T> && !std::is_same_v<T, bool>, int> = 0>
  JsonWriter& value(T x) {
    return raw(std::to_string(x));
  }
  JsonWriter& null();

  // The document, indented by two spaces a level; throws if it is not complete.
  std::string str() const;

 private:
  struct Level {
    bool object;
    bool empty = true;
    bool key_done = false;  // in an object: a key was written, its value is due
  };
  JsonWriter& raw(const std::string& text);
  void before_value();
  void newline();

  std::string out_;
  std::vector<Level> stack_;
  bool done_ = false;
};

// `s` as a JSON string literal, quotes included.
std::string json_string(std::string_view s);

}  // namespace shwa::io
