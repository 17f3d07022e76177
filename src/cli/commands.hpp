// The commands, one file each (command_*.cpp, batch.cpp), and what every one
// of them is run with. cli.cpp reads the command line, loads the data once
// and calls the command's entry here.
#pragma once

#include <ostream>

#include "flags.hpp"
#include "gpu_advise/catalog.hpp"
#include "gpu_advise/language.hpp"
#include "gpu_advise/prices.hpp"
#include "gpu_advise/rules.hpp"
#include "output.hpp"

namespace gpu_advise::cli {

// A command's whole input: its flags, the language, where the result goes,
// and the data every command loads (so a --catalog or --rules file given is
// always checked).
struct Session {
  Command command;
  const Flags& flags;
  Language language;
  const Output& output;
  const Catalog& base;     // the catalog as loaded: the shipped cards and every --catalog file
  const Catalog& catalog;  // the same, priced by the --price-file quotes where they cover a card
  const PriceBook& book;   // the --price-file quotes
  const RuleSet& rules;
};

// The entry of each command; each returns the process's exit status.
int run_recommend(const Session& session);  // recommend and compare: command_advice.cpp
int run_fit(const Session& session);        // command_advice.cpp
int run_batch_command(const Session& session);
int run_models(const Session& session);
int run_catalog_list(const Session& session);
int run_catalog_show(const Session& session);
int run_rules_list(const Session& session);
int run_prices(const Session& session);
int run_calibrate(const Session& session);  // command_calibrate.cpp

// The validate commands check one file alone, before the defaults and the data are read.
int run_catalog_validate(const Flags& flags, const Output& output);
int run_rules_validate(const Flags& flags, const Output& output);

// The --price-file files read against the catalog; the accelerators they
// price that the catalog does not know said once each on `err`.
[[nodiscard]] PriceBook read_price_files(const Flags& flags, const Catalog& base, std::ostream& err);

// The --calibration files read against the catalog; a card and stack (or
// engine) calibrated in two of them is an error.
[[nodiscard]] std::vector<Calibration> read_calibrations(const std::vector<std::string>& files, const Catalog& base);

}  // namespace gpu_advise::cli
