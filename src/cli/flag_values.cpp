#include "flag_values.hpp"

#include <algorithm>

#include "core/quantity_format.hpp"

namespace gpu_advise::cli::values {

namespace {

// An amount typed without a currency is in the request's currency.
double to_usd(const MoneyAmount& amount, const Request& request) {
  return amount.currency.value_or(request.currency) == Currency::cny ? amount.value / request.exchange_rate.cny_per_usd
                                                                     : amount.value;
}

void check_cny(const MoneyAmount& amount, const Request& request, std::string_view flag) {
  if (amount.currency == Currency::cny && request.exchange_rate.cny_per_usd <= 0) {
    throw UsageError(fmt::format("{}: an amount in CNY needs the catalog's exchange rate, and it has none", flag));
  }
}

// A money amount up to `limit`, or an error that says what was typed and
// gives an example (`what`: "a price per kWh such as 0.12, 0.12usd or 0.6cny").
MoneyAmount money(std::string_view flag, std::string_view text, double limit, std::string_view what) {
  const auto amount = wrap(flag, [&] { return parse_money_amount(text, limit); });
  if (!amount) {
    // The number's own complaint (negative, too large, not a number) when it has one.
    (void)wrap(flag, [&] { return parse_positive_number(text, limit); });
    throw UsageError(fmt::format("{}: '{}' is not {}", flag, text::excerpt(text), what));
  }
  return *amount;
}

// A latency target in ms, or none.
std::optional<double> target(std::string_view flag, const std::string& value) {
  if (value == "none") {
    return std::nullopt;
  }
  try {
    return parse_positive_number(value, 3.6e6);
  } catch (const std::exception&) {
    throw UsageError(
        fmt::format("{}: '{}' is not valid; expected milliseconds (a positive number up to one "
                    "hour, 3600000) or none",
                    flag, text::excerpt(value)));
  }
}

std::string card_id(std::string_view flag, const std::string& query, const Catalog& catalog) {
  try {
    return catalog.resolve(query).id;
  } catch (const UsageError& e) {
    throw UsageError(fmt::format("{}: {}", flag, e.what()));
  }
}

}  // namespace

void task(std::string_view flag, const std::string& value, Request& request, const RequestInputs&) {
  request.task = parse_task(value, flag);
}

void settle_currency(const Flags& flags, const Catalog& catalog, Request& request) {
  if (flags.currency.empty()) {
    request.currency = request.region == Region::cn ? Currency::cny : Currency::usd;
  }
  request.exchange_rate = catalog.info().exchange_rate;
  request.quotes_since = months_before(catalog.info().updated, 12);
  if (request.exchange_rate.cny_per_usd <= 0) {
    if (!flags.currency.empty() && request.currency == Currency::cny) {
      throw UsageError("--currency cny: the catalog has no exchange rate (catalog.exchange_rate in data/gpus.yaml)");
    }
    request.currency = Currency::usd;
  }
}

void budget(std::string_view flag, const std::string& value, Request& request, const RequestInputs&) {
  const BudgetChoice budget = parse_budget_choice(value, flag);
  request.budget = budget.tier;
  if (budget.amount) {
    check_cny(*budget.amount, request, flag);
    request.budget_usd = to_usd(*budget.amount, request);
  }
}

void gpu(std::string_view flag, const std::string& value, Request& request, const RequestInputs& inputs) {
  const std::string id = card_id(flag, value, inputs.catalog);
  if (std::find(request.gpu_ids.begin(), request.gpu_ids.end(), id) == request.gpu_ids.end()) {
    request.gpu_ids.push_back(id);
  }
}

void engine(std::string_view flag, const std::string& value, Request& request, const RequestInputs&) {
  const std::string name = text::to_lower(text::trim(value));
  if (name == "auto") {
    request.engine.reset();
    return;
  }
  // vLLM's builds for ROCm and Ascend are vLLM: each card runs its stack's build.
  if (name == "vllm-rocm" || name == "vllm-ascend") {
    request.engine = ServingEngine::vllm;
    return;
  }
  if (name == "tensorrt-llm") {
    request.engine = ServingEngine::trtllm;
    return;
  }
  if (const auto found = enum_from_string<ServingEngine>(name)) {
    request.engine = *found;
    return;
  }
  std::vector<std::string> valid = enum_names<ServingEngine>();
  valid.insert(valid.begin() + 1, {"vllm-rocm", "vllm-ascend"});
  valid.emplace_back("auto");
  std::string message =
      fmt::format("{}: '{}' is not a serving engine; expected {}", flag, text::excerpt(value), text::join_or(valid));
  if (const auto suggestion = text::did_you_mean(name, valid)) {
    message += fmt::format("; did you mean '{}'?", *suggestion);
  }
  throw UsageError(message);
}

void ecosystem(std::string_view flag, const std::string& value, Request& request, const RequestInputs&) {
  const std::string name = text::to_lower(text::trim(value));
  if (name == "any") {
    request.ecosystem.reset();
    return;
  }
  if (const auto stack = enum_from_string<SoftwareStack>(name)) {
    request.ecosystem = *stack;
    return;
  }
  std::vector<std::string> valid = enum_names<SoftwareStack>();
  valid.emplace_back("any");
  std::string message =
      fmt::format("{}: '{}' is not a software stack; expected {}", flag, text::excerpt(value), text::join_or(valid));
  if (const auto suggestion = text::did_you_mean(name, valid)) {
    message += fmt::format("; did you mean '{}'?", *suggestion);
  }
  throw UsageError(message);
}

void zero(std::string_view flag, const std::string& value, Request& request, const RequestInputs&) {
  const std::string stage(text::trim(value));
  if (stage.size() != 1 || stage[0] < '0' || stage[0] > '3') {
    throw UsageError(fmt::format("{}: '{}' is not a ZeRO stage; expected 0, 1, 2 or 3", flag, text::excerpt(value)));
  }
  request.zero_stage = stage[0] - '0';
}

void lora_targets(std::string_view flag, const std::string& value, Request& request, const RequestInputs&) {
  request.lora_targets = parse_lora_targets(value, flag);
}

void goodput(std::string_view flag, const std::string& value, Request& request, const RequestInputs&) {
  request.goodput = wrap(flag, [&] { return parse_positive_number(value, 1.0); });
  request.goodput_stated = true;
}

void tokens(std::string_view flag, const std::string& value, Request& request, const RequestInputs&) {
  request.tokens = wrap(flag, [&] { return parse_parameter_count(value); });
}

void deadline(std::string_view flag, const std::string& value, Request& request, const RequestInputs&) {
  request.deadline_hours = wrap(flag, [&] { return parse_duration_hours(value); });
}

void tpot(std::string_view flag, const std::string& value, Request& request, const RequestInputs&) {
  request.tpot_target_ms = target(flag, value);
  request.tpot_stated = true;
}

void ttft(std::string_view flag, const std::string& value, Request& request, const RequestInputs&) {
  request.ttft_target_ms = target(flag, value);
  request.ttft_stated = true;
}

// ID=PRICE per GPU-hour; a card priced twice the same is one price, priced
// twice differently an error that quotes both entries.
void price(std::string_view flag, const std::string& value, Request& request, const RequestInputs& inputs) {
  const auto equals = value.find('=');
  if (equals == std::string::npos) {
    throw UsageError(fmt::format("{}: '{}' is not ID=PRICE (per GPU-hour), e.g. --price h100-sxm5=2.10", flag,
                                 text::excerpt(value)));
  }
  PriceOverride price;
  price.gpu_id = card_id(flag, value.substr(0, equals), inputs.catalog);
  const std::string typed = value.substr(equals + 1);
  const MoneyAmount amount = money(flag, typed, 100000, "a price per GPU-hour such as 2.10, 2.10usd or 15cny");
  check_cny(amount, request, flag);
  price.usd_per_gpu_hour = to_usd(amount, request);
  if (price.usd_per_gpu_hour > max_price_usd_per_gpu_hour) {
    throw UsageError(fmt::format("{}: '{}' is {} per GPU-hour; at most {:.0f} USD is accepted", flag,
                                 text::excerpt(typed), format::money(price.usd_per_gpu_hour),
                                 max_price_usd_per_gpu_hour));
  }
  const auto same_card = std::find_if(request.prices.begin(), request.prices.end(),
                                      [&](const PriceOverride& p) { return p.gpu_id == price.gpu_id; });
  if (same_card == request.prices.end()) {
    request.prices.push_back(price);
  } else if (same_card->usd_per_gpu_hour != price.usd_per_gpu_hour) {
    // The entry as typed that priced the card first.
    const auto first = std::find_if(inputs.flags.prices.begin(), inputs.flags.prices.end(), [&](const auto& entry) {
      return card_id(flag, entry.substr(0, entry.find('=')), inputs.catalog) == price.gpu_id;
    });
    throw UsageError(fmt::format("{}: '{}' and '{}' both price {}; give one price per card", flag,
                                 text::excerpt(*first), text::excerpt(value), price.gpu_id));
  }
}

void condition(std::string_view flag, const std::string& value, Request& request, const RequestInputs&) {
  request.ownership.condition = parse_choice<Condition>(value, flag);
}

void market(std::string_view flag, const std::string& value, Request& request, const RequestInputs& inputs) {
  request.market = parse_choice<PriceTier>(value, flag);
  if (inputs.flags.spot && *request.market != PriceTier::spot) {
    throw UsageError("--spot is --market spot: give one of --spot and --market");
  }
  // --market spot is --spot everywhere, price files included.
  request.spot = request.spot || *request.market == PriceTier::spot;
}

void years(std::string_view flag, const std::string& value, Request& request, const RequestInputs&) {
  request.ownership.years = wrap(flag, [&] { return parse_positive_number(value, 10); });
  if (request.ownership.years < 1) {
    throw UsageError(fmt::format("{}: '{}' is under a year; give 1 to 10", flag, text::excerpt(value)));
  }
}

void utilization(std::string_view flag, const std::string& value, Request& request, const RequestInputs&) {
  std::string_view share = value;
  if (share.ends_with('%')) {
    share.remove_suffix(1);
  }
  const double percent = wrap(flag, [&] { return parse_positive_number(share, 100); });
  if (percent < 1) {
    throw UsageError(
        fmt::format("{}: '{}' is under 1%; give a share of the hours busy, 1 to 100 (%)", flag, text::excerpt(value)));
  }
  request.ownership.utilisation = percent / 100.0;
}

void power_price(std::string_view flag, const std::string& value, Request& request, const RequestInputs&) {
  const MoneyAmount amount = money(flag, value, 100, "a price per kWh such as 0.12, 0.12usd or 0.6cny");
  check_cny(amount, request, flag);
  const double usd = to_usd(amount, request);
  if (usd <= 0 || usd > max_power_usd_per_kwh) {
    throw UsageError(fmt::format("{}: '{}' is {} per kWh; give more than 0 and at most {} USD", flag,
                                 text::excerpt(value), format::money(usd), format::number(max_power_usd_per_kwh)));
  }
  request.ownership.usd_per_kwh = usd;
}

void explain(std::string_view, const std::string&, Request& request, const RequestInputs& inputs) {
  request.explain = true;
  request.explain_all = inputs.flags.explain_level == "all";
}

}  // namespace gpu_advise::cli::values
