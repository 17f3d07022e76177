// models: the model presets that --model names.
#include "commands.hpp"
#include "gpu_advise/model.hpp"
#include "gpu_advise/render.hpp"

namespace gpu_advise::cli {

int run_models(const Session& session) {
  const ModelCatalog models = load_embedded_models();
  session.output.write([&](OutputFormat f, const TextStyle& style) {
    return json_or_text(
        f, [&] { return render_models_json(models); },
        [&] { return render_models_text(models, session.language, style); });
  });
  return static_cast<int>(ExitCode::ok);
}

}  // namespace gpu_advise::cli
