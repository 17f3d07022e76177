#include <catch2/catch.hpp>

#include "gpu_advise/error.hpp"
#include "gpu_advise/request.hpp"

using namespace gpu_advise;

TEST_CASE("tasks parse by name and by documented alias, ignoring case", "[request]") {
  CHECK(parse_task("lora", "--task") == Task::lora);
  CHECK(parse_task("QLoRA", "--task") == Task::qlora);
  CHECK(parse_task("sft", "--task") == Task::full);
  CHECK(parse_task("finetune", "--task") == Task::full);
  CHECK(parse_task("serve", "--task") == Task::inference);
  CHECK(parse_task("pretraining", "--task") == Task::pretrain);
}

TEST_CASE("an unknown task names the flag, the valid values and a suggestion", "[request]") {
  CHECK_THROWS_AS(parse_task("lorra", "--task"), UsageError);
  CHECK_THROWS_WITH(parse_task("lorra", "--task"),
                    Catch::StartsWith("--task: 'lorra' is not a task") && Catch::Contains("did you mean 'lora'?"));
  CHECK_THROWS_WITH(parse_budget("hgih", "--budget"), Catch::Contains("did you mean 'high'?"));
  CHECK(parse_budget("LOW", "--budget") == BudgetTier::low);
}

TEST_CASE("training tokens default by task", "[request]") {
  Request r;
  r.params = 70e9;
  r.task = Task::pretrain;
  CHECK(r.training_tokens() == Approx(1.4e12));  // 20 tokens per parameter
  r.task = Task::lora;
  CHECK(r.training_tokens() == Approx(100e6));
  r.task = Task::inference;
  CHECK(r.training_tokens() == 0);
}

TEST_CASE("money amounts carry their currency when one is typed", "[request]") {
  const auto cny = parse_money_amount("350k cny", 1e12);
  REQUIRE(cny);
  CHECK(cny->value == Approx(350e3));
  CHECK(cny->currency == Currency::cny);
  CHECK(parse_money_amount("\xc2\xa5"
                           "2.5M",
                           1e12)
            ->value == Approx(2.5e6));                                           // the yen sign
  CHECK(parse_money_amount("15\xe5\x85\x83", 1e12)->currency == Currency::cny);  // yuan
  CHECK(parse_money_amount("9.5RMB", 1e12)->currency == Currency::cny);
  CHECK(parse_money_amount("$1.2M", 1e12)->currency == Currency::usd);
  CHECK(parse_money_amount("50000usd", 1e12)->value == Approx(50000));
  CHECK_FALSE(parse_money_amount("50k", 1e12)->currency.has_value());  // in --currency
  CHECK_FALSE(parse_money_amount("lots", 1e12).has_value());
  CHECK_FALSE(parse_money_amount("-5", 1e12).has_value());
  CHECK_FALSE(parse_money_amount("cny", 1e12).has_value());
  CHECK_THROWS_WITH(parse_money_amount("2m", 1e5), Catch::Contains("'2m' is more than 100000"));
}
