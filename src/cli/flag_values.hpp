// How each flag's value becomes part of the Request: the parsers that the
// flag table's rows name (flags.cpp), one per kind of value, each checking
// its value and saying what would be valid. Private to the cli library.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>

#include "flags.hpp"

namespace gpu_advise::cli::values {

namespace detail {
template <typename T>
struct value_type {
  using type = T;
};
template <typename T>
struct value_type<std::optional<T>> {
  using type = T;
};
// The type a Request member holds: int for `int` and `std::optional<int>`.
template <auto Field>
using held = typename value_type<std::remove_cvref_t<decltype(std::declval<Request&>().*Field)>>::type;
}  // namespace detail

// A whole number from 1 to Max: --seq-len 8192.
template <auto Field, std::int64_t Max>
void integer(std::string_view flag, const std::string& value, Request& request, const RequestInputs&) {
  request.*Field = wrap(flag, [&] { return static_cast<int>(parse_positive_integer(value, Max)); });
}

// A positive number up to Max: --epochs 2.5.
template <auto Field, std::int64_t Max>
void number(std::string_view flag, const std::string& value, Request& request, const RequestInputs&) {
  request.*Field = wrap(flag, [&] { return parse_positive_number(value, static_cast<double>(Max)); });
}

// One of an enum's names: --optimizer adamw-8bit.
template <auto Field>
void choice(std::string_view flag, const std::string& value, Request& request, const RequestInputs&) {
  request.*Field = parse_choice<detail::held<Field>>(value, flag);
}

// A switch: --spot.
template <auto Field>
void on(std::string_view, const std::string&, Request& request, const RequestInputs&) {
  request.*Field = true;
}

// The parsers of values with more to them than a range or a name.
void task(std::string_view flag, const std::string& value, Request& request, const RequestInputs& inputs);
void budget(std::string_view flag, const std::string& value, Request& request, const RequestInputs& inputs);
void gpu(std::string_view flag, const std::string& value, Request& request, const RequestInputs& inputs);
void ecosystem(std::string_view flag, const std::string& value, Request& request, const RequestInputs& inputs);
void engine(std::string_view flag, const std::string& value, Request& request, const RequestInputs& inputs);
void zero(std::string_view flag, const std::string& value, Request& request, const RequestInputs& inputs);
void lora_targets(std::string_view flag, const std::string& value, Request& request, const RequestInputs& inputs);
void goodput(std::string_view flag, const std::string& value, Request& request, const RequestInputs& inputs);
void tokens(std::string_view flag, const std::string& value, Request& request, const RequestInputs& inputs);
void deadline(std::string_view flag, const std::string& value, Request& request, const RequestInputs& inputs);
void tpot(std::string_view flag, const std::string& value, Request& request, const RequestInputs& inputs);
void ttft(std::string_view flag, const std::string& value, Request& request, const RequestInputs& inputs);
void price(std::string_view flag, const std::string& value, Request& request, const RequestInputs& inputs);
void market(std::string_view flag, const std::string& value, Request& request, const RequestInputs& inputs);
void condition(std::string_view flag, const std::string& value, Request& request, const RequestInputs& inputs);
void years(std::string_view flag, const std::string& value, Request& request, const RequestInputs& inputs);
void utilization(std::string_view flag, const std::string& value, Request& request, const RequestInputs& inputs);
void power_price(std::string_view flag, const std::string& value, Request& request, const RequestInputs& inputs);
void explain(std::string_view flag, const std::string& value, Request& request, const RequestInputs& inputs);

// The request's currency, once --region and --currency are read: CNY in China
// unless asked otherwise, USD when the catalog has no exchange rate.
void settle_currency(const Flags& flags, const Catalog& catalog, Request& request);

}  // namespace gpu_advise::cli::values
