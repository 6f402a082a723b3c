#pragma once
// Helpers for the I/O tests: a temporary folder, whole-file reads and writes, and a small XML
// well-formedness check for the VTK files.

#include <algorithm>
#include <cctype>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "../temp_dir.hpp"

namespace shwa::io::test {

// The I/O tests' temporary folders: io-test-XXXXXX.
struct TempDir : shwa_test::TempDir {
  TempDir() : shwa_test::TempDir("io-test") {}
};

inline std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error("cannot read " + path);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

inline void spit(const std::string& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary);
  out << text;
  if (!out) throw std::runtime_error("cannot write " + path);
}

inline std::string data_file(const std::string& name) { return std::string(SHWA_IO_TEST_DATA) + "/" + name; }

// "" if `xml` is a well-formed document as far as the VTK files need (a declaration, elements
// with quoted attributes, text, entities), else what is wrong with it.
inline std::string xml_problem(const std::string& xml) {
  std::vector<std::string> open;
  std::size_t i = 0;
  int roots = 0;
  const auto name_char = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-' || c == ':'; };
  const auto skip_space = [&] {
    while (i < xml.size() && std::isspace(static_cast<unsigned char>(xml[i]))) ++i;
  };
  if (xml.compare(0, 5, "<?xml") == 0) {
    i = xml.find("?>");
    if (i == std::string::npos) return "unterminated declaration";
    i += 2;
  }
  while (i < xml.size()) {
    if (xml[i] != '<') {
      if (open.empty() && !std::isspace(static_cast<unsigned char>(xml[i]))) return "text outside the root element";
      if (xml[i] == '&') {
        const auto semi = xml.find(';', i);
        static const char* kEntities[] = {"&amp;", "&lt;", "&gt;", "&quot;", "&apos;"};
        bool ok = false;
        for (const char* e : kEntities) ok = ok || (semi != std::string::npos && xml.compare(i, semi + 1 - i, e) == 0);
        if (!ok) return "bad entity at " + std::to_string(i);
      }
      ++i;
      continue;
    }
    ++i;
    const bool closing = i < xml.size() && xml[i] == '/';
    if (closing) ++i;
    const std::size_t start = i;
    while (i < xml.size() && name_char(xml[i])) ++i;
    const std::string name = xml.substr(start, i - start);
    if (name.empty()) return "tag without a name at " + std::to_string(start);
    if (closing) {
      skip_space();
      if (i >= xml.size() || xml[i] != '>') return "bad end tag " + name;
      ++i;
      if (open.empty() || open.back() != name) return "end tag " + name + " does not match";
      open.pop_back();
      continue;
    }
    std::vector<std::string> attributes;
    while (true) {
      skip_space();
      if (i >= xml.size()) return "unterminated tag " + name;
      if (xml[i] == '>' || xml.compare(i, 2, "/>") == 0) break;
      const std::size_t a = i;
      while (i < xml.size() && name_char(xml[i])) ++i;
      const std::string attr = xml.substr(a, i - a);
      if (attr.empty() || i + 1 >= xml.size() || xml[i] != '=' || xml[i + 1] != '"') return "bad attribute in " + name;
      if (std::find(attributes.begin(), attributes.end(), attr) != attributes.end()) return "duplicate attribute " + attr;
      attributes.push_back(attr);
      const auto end = xml.find('"', i + 2);
      if (end == std::string::npos) return "unterminated attribute " + attr;
      if (xml.substr(i + 2, end - i - 2).find('<') != std::string::npos) return "'<' in attribute " + attr;
      i = end + 1;
    }
    if (open.empty() && ++roots > 1) return "more than one root element";
    if (xml[i] == '/') {
      i += 2;
    } else {
      ++i;
      open.push_back(name);
    }
  }
  if (!open.empty()) return "unclosed element " + open.back();
  if (roots != 1) return "no root element";
  return "";
}

}  // namespace shwa::io::test
