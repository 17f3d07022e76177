// Owning against renting (docs/methodology.md §6.2): the arithmetic worked by
// hand, and how the estimator buys whole servers, used or new.
#include <catch2/catch.hpp>

#include <cmath>

#include "gpu_advise/estimate.hpp"
#include "gpu_advise/ownership.hpp"
#include "gpu_advise/words.hpp"
#include "gpu_fixture.hpp"

using namespace gpu_advise;

namespace {

OwnershipInputs worked() {
  OwnershipInputs in;
  in.gpus = 8;
  in.capex_usd = 100000;
  in.years = 3;
  in.utilisation = 0.5;
  in.residual_fraction = 0.3;
  in.max_kw = 10;
  in.busy_draw = 0.75;
  in.idle_draw = 0.2;
  in.pue = 1.4;
  in.usd_per_kwh = 0.1;
  in.colocation_usd_per_kw_month = 200;
  in.operations_per_year = 0.05;
  in.rent_usd_per_gpu_hour = 3;
  return in;
}

GpuSpec priced_card(const std::string& id, FormFactor form, Condition condition, double usd) {
  GpuSpec g = test::card(id, 80, 2000, 312, 8, 2.0);
  g.form_factor = form;
  g.node.gpus_per_node = 8;
  g.tdp_w = 400;
  g.purchase_usd_per_card.push_back(
      PriceQuote{usd, usd, "p", PriceKind::on_demand, condition, Region::global, "2026", "s"});
  return g;
}

Request buying(double params, Task task) {
  Request r = test::request(params, task);
  r.mode = CostMode::buy;
  r.exchange_rate.cny_per_usd = 6.66;
  return r;
}

}  // namespace

TEST_CASE("own_or_rent: every term of a worked case", "[ownership]") {
  const OwnershipResult r = own_or_rent(worked());
  const double hours = 3 * 8760.0;
  CHECK(r.hours == hours);
  CHECK(r.residual_usd == Approx(30000));
  CHECK(r.depreciation_usd == Approx(70000));
  CHECK(r.colocation_usd == Approx(10 * 200 * 36.0));
  CHECK(r.operations_usd == Approx(15000));
  const double per_kw = 1.4 * 0.1 * hours;  // a kW drawn all period, at the facility
  CHECK(r.power_usd == Approx(10 * (0.2 + 0.55 * 0.5) * per_kw));
  const double total = 70000 + 72000 + 15000 + 10 * 0.475 * per_kw;
  CHECK(r.total_usd == Approx(total));
  CHECK(r.usd_per_gpu_hour_used == Approx(total / (8 * hours * 0.5)));
  CHECK(r.rent_usd_at_utilisation == Approx(3.0 * 8 * hours * 0.5));
  // Owning costs F + V u, renting R u: F = 157000 + idle power, V = the busy extra.
  const double fixed = 157000 + 10 * 0.2 * per_kw;
  REQUIRE(r.break_even_utilisation);
  CHECK(*r.break_even_utilisation == Approx(fixed / (3.0 * 8 * hours - 10 * 0.55 * per_kw)));
  CHECK(*r.break_even_utilisation == Approx(0.2692).epsilon(0.001));
  REQUIRE(r.months_to_break_even);
  const double running = (72000 + 15000 + 10 * 0.475 * per_kw) / 36;
  CHECK(*r.months_to_break_even == Approx(100000 / (3.0 * 8 * 730 * 0.5 - running)));
}

TEST_CASE("own_or_rent: at the break-even, owning costs what renting does", "[ownership]") {
  OwnershipInputs in = worked();
  in.utilisation = *own_or_rent(in).break_even_utilisation;
  const OwnershipResult r = own_or_rent(in);
  CHECK(r.usd_per_gpu_hour_used == Approx(in.rent_usd_per_gpu_hour));
  CHECK(r.total_usd == Approx(r.rent_usd_at_utilisation));
}

TEST_CASE("own_or_rent: cheap rent never pays back, and no rent compares nothing", "[ownership]") {
  OwnershipInputs in = worked();
  in.rent_usd_per_gpu_hour = 0.3;
  const OwnershipResult cheap = own_or_rent(in);
  CHECK_FALSE(cheap.break_even_utilisation);
  CHECK_FALSE(cheap.months_to_break_even);
  in.rent_usd_per_gpu_hour = 0;
  const OwnershipResult none = own_or_rent(in);
  CHECK_FALSE(none.break_even_utilisation);
  CHECK(none.rent_usd_at_utilisation == 0);
  CHECK(none.usd_per_gpu_hour_used > 0);
}

TEST_CASE("own_or_rent: busier GPUs cost less per busy hour", "[ownership]") {
  OwnershipInputs in = worked();
  double last = 1e300;
  for (const double u : {0.1, 0.3, 0.5, 0.8, 1.0}) {
    in.utilisation = u;
    const double cost = own_or_rent(in).usd_per_gpu_hour_used;
    CHECK(cost < last);
    last = cost;
  }
}

TEST_CASE("buying PCIe cards: the plan's count of cards and a server per 8", "[ownership]") {
  const GpuSpec gpu = priced_card("g80", FormFactor::pcie, Condition::new_card, 20000);
  const Request r = buying(7e9, Task::pretrain);
  const Estimate e = estimate(r, infer_shape(7e9), gpu);
  REQUIRE(e.cost.ownership);
  const OwnershipCost& own = *e.cost.ownership;
  CHECK(own.gpus == e.count);
  CHECK(own.servers == (e.count + 7) / 8);
  const OwnershipData& data = ownership_data();
  const double host = 22000;  // the PCIe server without its cards, typical
  const double network = own.servers > 1 ? data.scale_out_per_pcie_server.value.typical * own.servers : 0.0;
  CHECK(e.cost.purchase_usd->typical == Approx(20000.0 * e.count + host * own.servers + network));
  CHECK(own.max_kw == Approx(0.4 * e.count + 2.0 * own.servers));
  // The run is charged the owned GPUs' busy hours at the stated utilisation.
  CHECK(e.cost.buy_usd->typical ==
        Approx(own.typical.usd_per_gpu_hour_used * own.gpus * e.training->wall_hours.typical));
  CHECK(own.low.usd_per_gpu_hour_used < own.typical.usd_per_gpu_hour_used);
  CHECK(own.typical.usd_per_gpu_hour_used < own.high.usd_per_gpu_hour_used);
  REQUIRE(own.usd_per_gpu_hour_by_utilisation.size() == 10);
  CHECK(own.usd_per_gpu_hour_by_utilisation[4] == Approx(own.typical.usd_per_gpu_hour_used));
  CHECK(own.rent_usd_per_gpu_hour == 2.0);
}

TEST_CASE("buying SXM cards: whole servers, even for a plan of fewer GPUs", "[ownership]") {
  const GpuSpec gpu = priced_card("s80", FormFactor::sxm, Condition::new_card, 25000);
  Request r = buying(7e9, Task::lora);
  r.count = 2;
  const Estimate e = estimate(r, infer_shape(7e9), gpu);
  REQUIRE(e.cost.ownership);
  CHECK(e.cost.ownership->servers == 1);
  CHECK(e.cost.ownership->gpus == 8);
  CHECK(e.cost.ownership->network_usd.typical == 0);
  CHECK(e.cost.purchase_usd->typical == Approx(8 * 25000.0 + 50000));
}

TEST_CASE("a used A100 server is priced whole, and a card without a used price is not priced to own", "[ownership]") {
  Request r = buying(70e9, Task::lora);
  r.ownership.condition = Condition::used;
  r.count = 8;
  const GpuSpec a100 = priced_card("a100-80gb-sxm4", FormFactor::sxm, Condition::used, 10000);
  const Estimate used = estimate(r, infer_shape(70e9), a100);
  REQUIRE(used.cost.ownership);
  CHECK(used.cost.ownership->whole_server);
  CHECK(used.cost.ownership->condition == Condition::used);
  CHECK(used.cost.purchase_usd->typical == Approx(95000));
  CHECK(used.cost.ownership->max_kw == Approx(8 * 0.4 + 3.3));

  const GpuSpec only_new = priced_card("n80", FormFactor::sxm, Condition::new_card, 25000);
  const Estimate none = estimate(r, infer_shape(70e9), only_new);
  CHECK_FALSE(none.cost.ownership);
  CHECK_FALSE(none.cost.purchase_usd);
  CHECK(none.cost.ownership_gap == OwnershipGap::no_used_price);

  r.ownership.condition = Condition::new_card;
  const GpuSpec only_used = priced_card("u80", FormFactor::sxm, Condition::used, 10000);
  CHECK(estimate(r, infer_shape(70e9), only_used).cost.ownership_gap == OwnershipGap::no_new_price);
}

TEST_CASE("China: power and colocation in CNY at the catalog rate, and --power-price replaces the tariff",
          "[ownership]") {
  Request r = buying(7e9, Task::lora);
  r.region = Region::cn;
  GpuSpec gpu = priced_card("g80", FormFactor::pcie, Condition::new_card, 20000);
  gpu.purchase_usd_per_card.front().region = Region::cn;
  const Estimate e = estimate(r, infer_shape(7e9), gpu);
  REQUIRE(e.cost.ownership);
  CHECK(e.cost.ownership->usd_per_kwh.typical == Approx(0.45 / 6.66));
  CHECK(e.cost.ownership->colocation_usd_per_kw_month.typical == Approx(300 / 6.66));
  CHECK(e.cost.ownership->pue.typical == Approx(1.3));
  r.ownership.usd_per_kwh = 0.2;
  const Estimate stated = estimate(r, infer_shape(7e9), gpu);
  CHECK(stated.cost.ownership->usd_per_kwh == Range{0.2, 0.2, 0.2});
  CHECK(stated.cost.ownership->typical.power_usd > e.cost.ownership->typical.power_usd);
}

TEST_CASE("the verdict says buy above the break-even and rent below it", "[ownership]") {
  Request r = buying(7e9, Task::lora);
  r.count = 8;
  GpuSpec gpu = priced_card("a100-80gb-sxm4", FormFactor::sxm, Condition::used, 10000);
  r.ownership.condition = Condition::used;
  r.ownership.utilisation = 0.9;
  const Estimate busy = estimate(r, infer_shape(7e9), gpu);
  REQUIRE(busy.cost.ownership);
  REQUIRE(busy.cost.ownership->owning_cheaper);
  CHECK(*busy.cost.ownership->owning_cheaper);
  const std::string buy = describe_verdict(r, *busy.cost.ownership, "A100", Language::en);
  CHECK_THAT(buy, Catch::StartsWith("at 90% utilization owning 8 x A100 (used) costs $"));
  CHECK_THAT(buy, Catch::Contains("buy if busy more than"));
  CHECK_THAT(buy, Catch::Contains("pays back in about"));
  r.ownership.utilisation = 0.1;
  const Estimate idle = estimate(r, infer_shape(7e9), gpu);
  CHECK_FALSE(*idle.cost.ownership->owning_cheaper);
  CHECK_THAT(describe_verdict(r, *idle.cost.ownership, "A100", Language::en), Catch::Contains("rent unless busy"));
  CHECK_THAT(describe_verdict(r, *idle.cost.ownership, "A100", Language::zh), Catch::Contains("就租"));
}

TEST_CASE("without an exchange rate the China figures in CNY give way to the global ones", "[ownership]") {
  const ExchangeRate none;
  ExchangeRate rate;
  rate.cny_per_usd = 6.66;
  CHECK(regional_ownership(Region::cn, rate).region == Region::cn);
  CHECK(regional_ownership(Region::cn, none).region == Region::global);
  CHECK(in_usd(regional_ownership(Region::cn, rate).power_per_kwh, rate).typical == Approx(0.45 / 6.66));
  CHECK(in_usd(regional_ownership(Region::global, none).power_per_kwh, none).typical == Approx(0.09));
}

TEST_CASE("a node of fewer GPUs than eight carries its share of the host", "[ownership]") {
  // Issue 37: host rows price an 8-GPU server; a 1-GPU module node (GH200)
  // pays an eighth of it, a 4-GPU tray (GB200) half, per GPU the same.
  for (const int per_node : {1, 4, 8}) {
    GpuSpec gpu = priced_card("m80", FormFactor::module, Condition::new_card, 30000);
    gpu.node.gpus_per_node = per_node;
    Request r = buying(7e9, Task::lora);
    r.count = per_node;
    const Estimate e = estimate(r, infer_shape(7e9), gpu);
    REQUIRE(e.cost.ownership);
    const OwnershipCost& own = *e.cost.ownership;
    INFO(per_node << " GPUs a node");
    CHECK(own.servers == 1);
    const double host = 50000.0 * per_node / 8.0;  // the module host, typical
    CHECK(e.cost.purchase_usd->typical == Approx(30000.0 * per_node + host));
    CHECK(own.max_kw == Approx(0.4 * per_node + 4.0 * per_node / 8.0));
  }
}

TEST_CASE("owning is set against the longest term quote up to the years owned", "[ownership]") {
  GpuSpec gpu = priced_card("s80", FormFactor::sxm, Condition::new_card, 25000);
  auto term = [](double usd, int months) {
    PriceQuote q{usd, usd, "t", PriceKind::reserved, Condition::new_card, Region::global, "2026-08", "s"};
    q.tier = PriceTier::term;
    q.term_months = months;
    return q;
  };
  gpu.rent_usd_per_gpu_hour.push_back(term(1.6, 12));
  gpu.rent_usd_per_gpu_hour.push_back(term(1.2, 36));
  gpu.rent_usd_per_gpu_hour.push_back(term(1.0, 60));  // longer than the years owned: not a match
  Request r = buying(7e9, Task::lora);
  r.ownership.years = 3;
  const Estimate three = estimate(r, infer_shape(7e9), gpu);
  REQUIRE(three.cost.ownership);
  CHECK(three.cost.ownership->rent_term_months == 36);
  CHECK(*three.cost.ownership->rent_usd_per_gpu_hour == Approx(1.2));
  r.ownership.years = 2;
  const Estimate two = estimate(r, infer_shape(7e9), gpu);
  CHECK(two.cost.ownership->rent_term_months == 12);
  CHECK(*two.cost.ownership->rent_usd_per_gpu_hour == Approx(1.6));
  // Priced at another tier (or --price), the plan's own rent is the comparison.
  r.market = PriceTier::specialist;
  const Estimate asked = estimate(r, infer_shape(7e9), gpu);
  CHECK(asked.cost.ownership->rent_term_months == 0);
  CHECK(*asked.cost.ownership->rent_usd_per_gpu_hour == Approx(2.0));
}
