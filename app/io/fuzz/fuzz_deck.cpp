// libFuzzer harness for the deck parser: any input must parse or throw InputError; a deck that
// parses must survive an override, reads of every kind and the unused-key report, and its
// resolved TOML must parse again.
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "io/deck.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  using shwa::io::InputError;
  shwa::io::Deck deck;
  try {
    deck = shwa::io::Deck::parse(text, "fuzz.toml");
  } catch (const InputError&) {
    return 0;
  }
  // The first line doubles as a command-line override.
  try { deck.set_override(text.substr(0, text.find('\n'))); } catch (const InputError&) {}
  for (const std::string key : {"a", "b.c", "numerics.cfl", "x"}) {
    try { deck.get_double(key, 1.0); } catch (const InputError&) {}
    try { deck.get_int(key, 1); } catch (const InputError&) {}
    try { deck.get_string(key, "s"); } catch (const InputError&) {}
    try { deck.get_double_list(key, std::vector<double>{}); } catch (const InputError&) {}
    try { deck.get_choice(key, {"a", "b"}); } catch (const InputError&) {}
  }
  deck.unused_report();
  const std::string resolved = deck.resolved_toml();
  try {
    shwa::io::Deck::parse(resolved, "resolved.toml");
  } catch (const InputError&) {
    __builtin_trap();  // the resolved configuration must always read back
  }
  return 0;
}
