// shwa/app/output_files.cpp — see output_files.hpp.
#include "output_files.hpp"

#include "checkpointing.hpp"

#include "outputs.hpp"

#include "io/atomic_file.hpp"
#include "io/error.hpp"
#include "io/gauges.hpp"
#include "io/text.hpp"
#include "io/vtk.hpp"

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <regex>
#include <set>

namespace shwa::app {

namespace fs = std::filesystem;

namespace {

/// The folders a run fills, each with the pattern of the names it writes there.
struct Folder {
  const char* name;
  const char* pattern;
};
// (_[A-Za-z][A-Za-z0-9_]*)?: a named pollutant's fields carry its name (pollutant_field).
const Folder kFolders[] = {
    {"vtk", R"((shwa_[0-9]{4,}|maxima)(_r[0-9]{4,})?\.(vti|pvti))"},
    {"asc", R"((h|eta|u|v|c(_[A-Za-z][A-Za-z0-9_]*)?)_[0-9]{4,}\.(asc|prj))"},
    {"maxima", R"((hmax|(cmax|arrival)(_[A-Za-z][A-Za-z0-9_]*)?)\.(asc|prj))"},
    {"png",
     R"(((depth|concentration(_[A-Za-z][A-Za-z0-9_]*)?)_([0-9]{4,}|animation)|hmax|(cmax|arrival)(_[A-Za-z][A-Za-z0-9_]*)?)\.png)"},
    {"checkpoints", R"(checkpoint_[0-9]+\.shck)"},
};
/// The files a run writes in the output directory itself.
const char* const kTopLevel = R"(deck\.toml|summary\.json|gauges\.csv|shwa\.pvd|shwa\.nc|shwa\.nc\.resume\.tmp|shwa\.run)";
/// The temporary file of an atomic write of NAME (io/atomic_file.hpp).
const char* const kTemporary = R"((\.tmp\.[0-9]+\.[0-9]+)?)";

bool matches(const std::string& name, const char* pattern) {
  return std::regex_match(name, std::regex(std::string("(") + pattern + ")" + kTemporary));
}

const std::string kDeck = "deck.", kInput = "input.";

/// One line of a record: backslashes and line ends escaped, so that any value fits on it.
std::string escaped(const std::string& s) {
  std::string out;
  for (const char c : s) out += c == '\\' ? std::string("\\\\") : c == '\n' ? std::string("\\n") : std::string(1, c);
  return out;
}

}  // namespace

bool is_shwa_output(const std::string& relative) {
  const fs::path p(relative);
  const std::string name = p.filename().string(), parent = p.parent_path().string();
  if (parent.empty()) return matches(name, kTopLevel);
  for (const Folder& f : kFolders)
    if (parent == f.name) return matches(name, f.pattern);
  return false;
}

std::vector<std::string> shwa_outputs_in(const std::string& dir) {
  std::vector<std::string> found;
  auto scan = [&](const std::string& sub) {
    std::error_code ec;
    for (const auto& e : fs::directory_iterator(fs::path(dir) / sub, ec)) {
      std::error_code ignored;
      if (!e.is_regular_file(ignored)) continue;
      const std::string rel = sub.empty() ? e.path().filename().string() : sub + "/" + e.path().filename().string();
      if (is_shwa_output(rel)) found.push_back(rel);
    }
  };
  scan("");
  for (const Folder& f : kFolders) scan(f.name);
  std::sort(found.begin(), found.end());
  return found;
}

int remove_shwa_outputs(const std::string& dir) {
  int removed = 0;
  for (const std::string& rel : shwa_outputs_in(dir)) {
    std::error_code ec;
    if (!fs::remove(fs::path(dir) / rel, ec) && ec)
      throw io::OutputError(dir + "/" + rel + ": cannot remove: " + ec.message());
    ++removed;
  }
  for (const Folder& f : kFolders) {
    std::error_code ec;
    if (fs::is_directory(fs::path(dir) / f.name, ec) && fs::is_empty(fs::path(dir) / f.name, ec))
      fs::remove(fs::path(dir) / f.name, ec);
  }
  return removed;
}

void write_run_record(const std::string& dir, const std::map<std::string, std::string>& definition) {
  std::string text =
      "# shwa: what defines the run whose outputs are in this directory: its deck values (deck.KEY) and\n"
      "# the digests of its input files (input.KEY). A run that starts over here removes the files of\n"
      "# the same run only, or with --overwrite (inputs/README.md).\n";
  for (const auto& [key, value] : definition) text += escaped(key) + " = " + escaped(value) + "\n";
  io::write_file_atomically(dir + "/" + kRunRecord, text);
}

std::optional<std::map<std::string, std::string>> read_run_record(const std::string& dir) {
  const std::string path = dir + "/" + kRunRecord;
  std::error_code ec;
  if (!fs::exists(path, ec)) return std::nullopt;
  const std::string text = io::read_text_file(path);
  std::map<std::string, std::string> m;
  int line_no = 0;
  std::size_t pos = 0;
  while (pos < text.size()) {
    const std::size_t end = std::min(text.find('\n', pos), text.size());
    const std::string line = text.substr(pos, end - pos);
    pos = end + 1;
    ++line_no;
    if (line.empty() || line[0] == '#') continue;
    const std::size_t eq = line.find(" = ");
    if (eq == std::string::npos)
      throw io::InputError(path + ":" + std::to_string(line_no) + ": not a line of a run record (KEY = VALUE)");
    auto unescape = [&](const std::string& s) {
      std::string out;
      for (std::size_t k = 0; k < s.size(); ++k) {
        if (s[k] != '\\') {
          out += s[k];
          continue;
        }
        if (k + 1 == s.size() || (s[k + 1] != '\\' && s[k + 1] != 'n'))
          throw io::InputError(path + ":" + std::to_string(line_no) + ": a bad escape in a run record");
        out += s[++k] == 'n' ? '\n' : '\\';
      }
      return out;
    };
    m[unescape(line.substr(0, eq))] = unescape(line.substr(eq + 3));
  }
  return m;
}

std::optional<std::string> another_run(const std::map<std::string, std::string>& recorded,
                                       const std::map<std::string, std::string>& ours) {
  auto with_prefix = [](const std::map<std::string, std::string>& m, const std::string& prefix) {
    std::map<std::string, std::string> out;
    for (const auto& [k, v] : m)
      if (k.compare(0, prefix.size(), prefix) == 0) out[k.substr(prefix.size())] = v;
    return out;
  };
  const auto theirs = with_prefix(recorded, kDeck), mine = with_prefix(ours, kDeck);
  const auto their_files = with_prefix(recorded, kInput), my_files = with_prefix(ours, kInput);
  std::set<std::string> keys;
  for (const auto& kv : theirs) keys.insert(kv.first);
  for (const auto& kv : mine) keys.insert(kv.first);
  for (const std::string& key : keys) {
    if (may_change_on_restart(key) || key.rfind("output.", 0) == 0 || key.rfind("gauges.", 0) == 0) continue;
    // A key naming an input file compares by the file's contents, below: it may have moved.
    if (their_files.count(key) && my_files.count(key)) continue;
    const auto a = mine.find(key), b = theirs.find(key);
    const bool here = a != mine.end(), there = b != theirs.end();
    if (here && there && a->second == b->second) continue;
    return key + ": " + (here ? io::quote(a->second) : std::string("not set")) + " here, " +
           (there ? io::quote(b->second) : std::string("not set")) + " in that run";
  }
  for (const auto& [key, digest] : my_files) {
    const auto b = their_files.find(key);
    if (b != their_files.end() && b->second == digest) continue;
    return "the file of " + key + " differs (" + digest + " here, " +
           (b == their_files.end() ? std::string("none in that run") : b->second + " in that run") + ")";
  }
  return std::nullopt;
}

std::optional<std::string> output_dir_conflict(const std::string& dir, const std::map<std::string, std::string>& ours) {
  const std::vector<std::string> files = shwa_outputs_in(dir);
  if (files.empty()) return std::nullopt;
  const auto recorded = read_run_record(dir);
  if (!recorded) {
    std::string some;
    for (std::size_t k = 0; k < files.size() && k < 3; ++k) some += (k ? ", " : "") + files[k];
    if (files.size() > 3) some += ", ...";
    return "holds files shwa writes (" + some + ") without a record of the run that wrote them (" + kRunRecord + ")";
  }
  if (const auto diff = another_run(*recorded, ours)) return "holds the outputs of another run (" + *diff + ")";
  return std::nullopt;
}

namespace {

/// The strings in double quotes of a deck list value as io::Deck::values() gives it: ["a", "b"].
std::vector<std::string> quoted_items(const std::string& list) {
  std::vector<std::string> items;
  for (std::size_t a = list.find('"'); a != std::string::npos; a = list.find('"', a + 1)) {
    const std::size_t b = list.find('"', a + 1);
    if (b == std::string::npos) break;
    items.push_back(list.substr(a + 1, b - a - 1));
    a = b;
  }
  return items;
}

/// The last `n` bytes of a file (fewer if it is shorter); nothing if it cannot be read.
std::optional<std::string> tail(const std::string& path, std::size_t n) {
  std::error_code ec;
  const auto size = fs::file_size(path, ec);
  if (ec) return std::nullopt;
  std::ifstream in(path, std::ios::binary);
  if (!in) return std::nullopt;
  const std::size_t take = std::size_t(std::min<std::uintmax_t>(size, n));
  in.seekg(std::streamoff(size - take));
  std::string t(take, '\0');
  in.read(t.data(), std::streamsize(take));
  if (std::size_t(in.gcount()) != take) return std::nullopt;
  return t;
}

}  // namespace

void check_resumable_outputs(const RunConfig& cfg, const io::Checkpoint& c, const std::string& checkpoint,
                             const std::vector<std::string>& gauge_quantities) {
  const std::string& dir = cfg.out.dir;
  const double t = c.time;
  const std::string at = "t = " + io::format_double(t) + " s";
  const std::string hint =
      "; a restart from " + checkpoint + " continues it (run the deck again without --restart to start over)";
  const auto refuse = [&](const std::string& file, const std::string& why) {
    throw io::InputError(file + ": " + why + hint);
  };
  const auto refuse_as = [&](const io::InputError& e) { throw io::InputError(e.what() + hint); };
  const auto meta = [&](const std::string& key) -> std::optional<long long> {
    const auto it = c.metadata.find(key);
    return it == c.metadata.end() ? std::nullopt : io::parse_int(it->second);
  };
  const auto earlier = [&](const std::string& key) {
    const auto it = c.metadata.find("deck." + key);
    return it == c.metadata.end() ? std::vector<std::string>{} : quoted_items(it->second);
  };
  const std::vector<std::string> formats = earlier("output.formats"), fields = earlier("output.fields");
  const auto written_before = [&](const std::string& format) {
    return std::find(formats.begin(), formats.end(), format) != formats.end();
  };
  // What the run had written by its checkpoint (absent from checkpoints of older shwa versions).
  const auto frames = meta("frames"), gauge_rows = meta("gauge_rows");
  const auto count_differs = [&](const std::string& file, long long n, const char* what, long long expected) {
    refuse(file, "holds " + std::to_string(n) + " " + what + " up to " + at + " where the run had written " +
                     std::to_string(expected) + " (the file was cut short, replaced or edited)");
  };

  if (!cfg.out.gauges.empty()) {
    const std::string file = dir + "/gauges.csv";
    std::error_code ec;
    if (!fs::exists(file, ec)) refuse(file, "missing: the gauge samples up to " + at + " are lost");
    long rows = 0;
    try {
      rows = io::GaugeWriter::resumable_rows(file, cfg.out.gauges, gauge_quantities, t);
    } catch (const io::InputError& e) {
      refuse_as(e);
    }
    if (gauge_rows && rows != *gauge_rows) count_differs(file, rows, "gauge rows", *gauge_rows);
  }

#if SHWA_HAVE_NETCDF
  if (cfg.out.has_format("netcdf")) {
    const std::string file = dir + "/shwa.nc";
    if (!written_before("netcdf"))
      throw io::InputError(file + ": output.formats adds netcdf on a restart from " + checkpoint +
                           ", whose run did not write NetCDF: the file would lack the outputs before " + at +
                           " (leave netcdf out of output.formats, or run the deck again without --restart)");
    std::error_code ec;
    if (!fs::exists(file, ec)) refuse(file, "missing: its records up to " + at + " are lost");
    std::size_t records = 0;
    try {
      records = netcdf_resumable_records(cfg, t);
    } catch (const io::InputError& e) {
      refuse_as(e);
    }
    if (frames && (long long)(records) != *frames) count_differs(file, (long long)(records), "records", *frames);
  }
#endif

  // A file whose end is missing: a .vti, .pvti or .pvd without its closing tag, an ESRI ASCII
  // grid without its last line end, a PNG without its IEND chunk.
  const auto check_whole = [&](const std::string& file) {
    std::error_code ec;
    if (!fs::exists(file, ec)) refuse(file, "missing: an output before " + at + " is lost");
    const std::string ext = fs::path(file).extension().string();
    const std::string end = ext == ".asc" ? std::string("\n")
                            : ext == ".png" ? std::string("IEND\xae\x42\x60\x82", 8)
                                            : std::string("</VTKFile>\n");
    const auto got = tail(file, end.size());
    if (!got || *got != end) refuse(file, "cut short: an output before " + at + " is not whole");
  };

  if (cfg.out.has_format("vtk") && written_before("vtk")) {
    const std::string file = dir + "/shwa.pvd";
    check_whole(file);
    std::vector<io::PvdCollection::Entry> entries;
    try {
      entries = io::PvdCollection::resume(file, t).entries();
    } catch (const io::InputError& e) {
      refuse_as(e);
    }
    if (frames && (long long)(entries.size()) != *frames)
      count_differs(file, (long long)(entries.size()), "frames", *frames);
    for (const auto& e : entries) {
      const std::string listed = dir + "/" + e.file;
      check_whole(listed);
      if (fs::path(listed).extension() != ".pvti") continue;
      // The pieces a .pvti joins, next to it.
      const std::string text = io::read_text_file(listed);
      for (std::size_t a = text.find("Source=\""); a != std::string::npos; a = text.find("Source=\"", a + 1)) {
        const std::size_t from = a + 8, to = text.find('"', from);
        if (to == std::string::npos) refuse(listed, "cut short or corrupt: a piece's Source has no end");
        check_whole((fs::path(listed).parent_path() / text.substr(from, to - from)).string());
      }
    }
  }

  // The asc and png frames before the checkpoint: frames are numbered in the order written, 0 to
  // the count the run had written less one.
  if (frames) {
    for (long long k = 0; k < *frames; ++k) {
      const std::string tag = frame_tag(int(k));
      if (cfg.out.has_format("asc") && written_before("asc"))
        for (const std::string& f : cfg.out.fields)
          if (std::find(fields.begin(), fields.end(), f) != fields.end())
            for (const std::string& name : run_field_names({f}, cfg.pollutants))
              check_whole(dir + "/asc/" + name + "_" + tag + ".asc");
      if (cfg.out.has_format("png") && written_before("png")) {
        check_whole(dir + "/png/depth_" + tag + ".png");
        for (const std::string& p : cfg.pollutants)
          check_whole(dir + "/png/" + pollutant_field("concentration", p) + "_" + tag + ".png");
      }
    }
  }
}

}  // namespace shwa::app
