#include <catch2/catch.hpp>

#include "gpu_advise/text.hpp"

using namespace gpu_advise;

TEST_CASE("edit distance counts insertions, deletions and substitutions", "[text]") {
  CHECK(text::edit_distance("", "") == 0);
  CHECK(text::edit_distance("kitten", "sitting") == 3);
  CHECK(text::edit_distance("bandwidth", "bandwith") == 1);
}

TEST_CASE("did-you-mean offers only plausible typos", "[text]") {
  const std::vector<std::string> keys = {"memory", "compute", "interconnect", "availability"};
  CHECK(text::did_you_mean("memroy", keys) == std::optional<std::string>("memory"));
  CHECK(text::did_you_mean("Compute", keys) == std::optional<std::string>("compute"));
  CHECK_FALSE(text::did_you_mean("price", keys).has_value());
}

TEST_CASE("names normalise case, spaces, hyphens and underscores", "[text]") {
  CHECK(text::normalise_name("A100 80GB SXM4") == text::normalise_name("a100-80gb-sxm4"));
  CHECK(text::normalise_name("RTX_4090") == "rtx4090");
}

TEST_CASE("lists join with commas and a final 'or'", "[text]") {
  const std::vector<std::string> items = {"a", "b", "c"};
  CHECK(text::join_or(items) == "a, b or c");
  CHECK(text::join(items, "/") == "a/b/c");
}
