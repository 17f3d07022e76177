// SkyPilot accelerator names onto the catalog's cards, and the value checks of
// price files (price_names.hpp; the rules are docs/prices.md).
#include "load/price_names.hpp"

#include <algorithm>
#include <charconv>
#include <chrono>
#include <cmath>
#include <iterator>
#include <utility>

#include "gpu_advise/text.hpp"

namespace gpu_advise::price_values {

// ------------------------------------------------------------ values

std::optional<double> parse_number(std::string_view s) {
  double value = 0;
  const auto [end, error] = std::from_chars(s.data(), s.data() + s.size(), value);
  if (s.empty() || error != std::errc() || end != s.data() + s.size() || !std::isfinite(value)) {
    return std::nullopt;
  }
  return value;
}

// Digits with an optional fraction: "2", "2.10", "0.5".
bool plain_decimal(std::string_view s) {
  const auto digits = [](std::string_view part) {
    return !part.empty() && std::all_of(part.begin(), part.end(), [](char c) { return c >= '0' && c <= '9'; });
  };
  const auto dot = s.find('.');
  return dot == std::string_view::npos ? digits(s) : digits(s.substr(0, dot)) && digits(s.substr(dot + 1));
}

// YYYY-MM or YYYY-MM-DD, a day that exists.
bool is_real_date(std::string_view s) {
  if ((s.size() != 7 && s.size() != 10) || s[4] != '-' || (s.size() == 10 && s[7] != '-')) {
    return false;
  }
  const auto number = [&](std::size_t from, std::size_t count) {
    int value = 0;
    for (std::size_t i = from; i < from + count; ++i) {
      if (s[i] < '0' || s[i] > '9') {
        return -1;
      }
      value = value * 10 + (s[i] - '0');
    }
    return value;
  };
  const int year = number(0, 4);
  const int month = number(5, 2);
  const int day = s.size() == 10 ? number(8, 2) : 1;
  if (year < 1990 || year > 2100 || month < 1 || day < 1) {
    return false;
  }
  return std::chrono::year_month_day{std::chrono::year{year}, std::chrono::month{static_cast<unsigned>(month)},
                                     std::chrono::day{static_cast<unsigned>(day)}}
      .ok();
}

// Text that prints as it is, on one line.
bool is_clean(std::string_view s) {
  return s.find_first_of("\t\n") == std::string_view::npos && text::invalid_utf8_at(s) == std::string_view::npos &&
         text::control_at(s) == std::string_view::npos;
}

std::vector<std::string> words_of(std::string_view s, std::string_view separators) {
  std::vector<std::string> out;
  std::size_t start = 0;
  while (start <= s.size()) {
    const auto end = std::min(s.find_first_of(separators, start), s.size());
    if (end > start) {
      out.emplace_back(s.substr(start, end - start));
    }
    start = end + 1;
  }
  return out;
}

namespace {

// A label within this share of the memory GpuInfo gives is the same part.
constexpr double memory_tolerance = 0.10;

using Hint = FormHint;

// "80GB" -> 80
std::optional<double> memory_word(std::string_view word) {
  const std::string upper = text::to_upper(word);
  if (upper.size() < 3 || upper.substr(upper.size() - 2) != "GB") {
    return std::nullopt;
  }
  const std::string_view digits = std::string_view(upper).substr(0, upper.size() - 2);
  if (!plain_decimal(digits)) {
    return std::nullopt;
  }
  return parse_number(digits);
}

Hint hint_word(std::string_view word) {
  const std::string upper = text::to_upper(word);
  if (upper.rfind("SXM", 0) == 0 &&
      std::all_of(upper.begin() + 3, upper.end(), [](char c) { return c >= '0' && c <= '9'; })) {
    return Hint::baseboard;
  }
  if (upper == "NVLINK" || upper == "MEGA") {
    return Hint::baseboard;
  }
  if (upper == "PCIE") {
    return Hint::pcie;
  }
  return upper == "NVL" ? Hint::nvl : Hint::none;
}

// SkyPilot names the catalog's ids and aliases do not spell, or spell only
// by chance (docs/prices.md): the name, normalised, and the card's id.
constexpr std::pair<std::string_view, std::string_view> skypilot_names[] = {
    {"a6000", "rtx-a6000"},     // Lambda's RTX A6000
    {"rtxa6000", "rtx-a6000"},  // RunPod's and Vast's
    {"t4g", "t4"},              // AWS g5g: the T4G, a T4 for Arm hosts
};

// SkyPilot's names that stand for one memory size when nothing tells it:
// its "A100" is the 40 GB part ("A100-80GB" is the other); GCP's rows give no
// memory at all.
constexpr std::pair<std::string_view, double> skypilot_default_gb[] = {{"a100", 40}};

bool is_baseboard(const GpuSpec* card) {
  return card->form_factor == FormFactor::sxm || card->form_factor == FormFactor::oam;
}
bool is_nvl(const GpuSpec* card) { return text::normalise_name(card->id).find("nvl") != std::string::npos; }

}  // namespace

// The first 'SizeInMiB': N of a GpuInfo (one GPU's memory; Lambda's
// TotalGpuMemoryInMiB is one GPU's too, so it is not used).
std::optional<double> gpu_info_mib(std::string_view info) {
  const auto at = info.find("SizeInMiB");
  if (at == std::string_view::npos) {
    return std::nullopt;
  }
  auto rest = info.substr(at + 9);
  const auto start = rest.find_first_not_of("'\": ");
  if (start == std::string_view::npos) {
    return std::nullopt;
  }
  rest = rest.substr(start);
  const auto end = std::min(rest.find_first_not_of("0123456789."), rest.size());
  const auto value = parse_number(rest.substr(0, end));
  return value && *value > 0 ? value : std::nullopt;
}

CardNames::CardNames(const Catalog& catalog) {
  for (const auto& gpu : catalog.gpus()) {
    m_ids.try_emplace(text::normalise_name(gpu.id), &gpu);
    for (const auto& alias : gpu.aliases) {
      auto& named = m_aliases[text::normalise_name(alias)];
      if (std::find(named.begin(), named.end(), &gpu) == named.end()) {
        named.push_back(&gpu);
      }
    }
  }
}

Catalog::Lookup CardNames::find(std::string_view query) const {
  Catalog::Lookup result;
  const std::string key = text::normalise_name(query);
  if (key.empty()) {
    return result;
  }
  if (const auto id = m_ids.find(key); id != m_ids.end()) {
    result.match = id->second;
    return result;
  }
  if (const auto alias = m_aliases.find(key); alias != m_aliases.end()) {
    if (alias->second.size() == 1) {
      result.match = alias->second.front();
    } else {
      result.candidates = alias->second;
    }
  }
  return result;
}

InstanceTraits instance_traits(std::string_view instance_type) {
  InstanceTraits traits;
  // The words as views, not words_of's strings: this runs once per row.
  for (std::size_t start = 0; start <= instance_type.size();) {
    const std::size_t end = std::min(instance_type.find_first_of("-_. ", start), instance_type.size());
    if (end > start) {
      const std::string_view word = instance_type.substr(start, end - start);
      if (const auto gb = memory_word(word)) {
        traits.memory_gb = traits.memory_gb.value_or(*gb);
      } else if (const Hint h = hint_word(word); h != Hint::none && traits.hint == Hint::none) {
        traits.hint = h;
      }
    }
    start = end + 1;
  }
  return traits;
}

const GpuSpec* map_accelerator(const CardNames& catalog, std::string_view name, const InstanceTraits& instance,
                               std::optional<double> info_mib) {
  Hint hint = Hint::none;
  std::optional<double> memory_gb;
  if (info_mib) {
    memory_gb = *info_mib / 1024;  // GiB, which is how the cards' labels count ("80 GB" is 80 GiB)
  }
  std::vector<std::string> family;
  for (const auto& word : words_of(name, "-_ ")) {
    if (const auto gb = memory_word(word)) {
      memory_gb = memory_gb.value_or(*gb);
    } else if (const Hint h = hint_word(word); h != Hint::none) {
      hint = hint == Hint::none ? h : hint;
    } else {
      family.push_back(word);
    }
  }
  if (instance.memory_gb) {
    memory_gb = memory_gb.value_or(*instance.memory_gb);
  }
  if (hint == Hint::none) {
    hint = instance.hint;
  }
  const std::string key = text::normalise_name(name);
  if (!memory_gb) {
    for (const auto& [known, gb] : skypilot_default_gb) {
      memory_gb = known == key ? std::optional<double>(gb) : memory_gb;
    }
  }
  std::vector<const GpuSpec*> cards;
  const auto listed = std::find_if(std::begin(skypilot_names), std::end(skypilot_names),
                                   [&](const auto& entry) { return entry.first == key; });
  if (listed != std::end(skypilot_names)) {
    if (const auto found = catalog.find(listed->second); found.match != nullptr) {
      cards.push_back(found.match);
    }
  } else if (const auto direct = catalog.find(name); direct.match != nullptr) {
    cards.push_back(direct.match);
  } else {
    const auto found = catalog.find(text::join(family, "-"));
    cards = found.match != nullptr ? std::vector<const GpuSpec*>{found.match} : found.candidates;
  }
  const auto keep = [&](auto&& predicate) {
    std::vector<const GpuSpec*> kept;
    std::copy_if(cards.begin(), cards.end(), std::back_inserter(kept), predicate);
    return kept;
  };
  if (memory_gb) {
    cards = keep([&](const GpuSpec* card) {
      return std::abs(*memory_gb - card->memory.size_gb) <= memory_tolerance * card->memory.size_gb;
    });
  }
  if (cards.size() > 1 && hint != Hint::none) {
    cards = keep([&](const GpuSpec* card) {
      switch (hint) {
        case Hint::baseboard: return is_baseboard(card);
        case Hint::pcie: return card->form_factor == FormFactor::pcie && !is_nvl(card);
        case Hint::nvl: return is_nvl(card);
        case Hint::none: break;
      }
      return true;
    });
  }
  if (cards.size() > 1) {
    if (auto baseboard = keep(is_baseboard); !baseboard.empty()) {
      cards = std::move(baseboard);
    }
  }
  return cards.size() == 1 ? cards.front() : nullptr;
}

}  // namespace gpu_advise::price_values
