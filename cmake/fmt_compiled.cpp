// fmt's compiled part, once, for the static build (GPU_ADVISE_STATIC).
//
// Debian's libfmt-dev ships libfmt.so but no static archive, and fmt's
// header-only mode (FMT_HEADER_ONLY) compiles fmt's formatting core into every
// translation unit that includes <fmt/format.h>: about 3 s of optimised
// compilation per file (docs/development.md). Instead the static build
// compiles <fmt/format-inl.h> here, in one object, and every other file
// includes fmt as the shared-library build does.
//
// What the shared library provides beyond format-inl.h's non-template
// functions are the template instantiations <fmt/format.h> declares (extern
// templates and the Dragonbox entry points); they are instantiated here for
// the character types gpu-advise uses. A missing one is a link error, never a
// silent difference.
#include <fmt/format-inl.h>

FMT_BEGIN_NAMESPACE
namespace detail {

template FMT_API auto dragonbox::to_decimal(float x) noexcept -> dragonbox::decimal_fp<float>;
template FMT_API auto dragonbox::to_decimal(double x) noexcept -> dragonbox::decimal_fp<double>;

template FMT_API locale_ref::locale_ref(const std::locale& loc);
template FMT_API auto locale_ref::get<std::locale>() const -> std::locale;

template FMT_API auto thousands_sep_impl(locale_ref) -> thousands_sep_result<char>;
template FMT_API auto decimal_point_impl(locale_ref) -> char;
template FMT_API void buffer<char>::append(const char*, const char*);

template FMT_API auto thousands_sep_impl(locale_ref) -> thousands_sep_result<wchar_t>;
template FMT_API auto decimal_point_impl(locale_ref) -> wchar_t;

}  // namespace detail
FMT_END_NAMESPACE
