// How a case declares itself, once, in its own folder: dims, params and buffers bound to the members
// of the case's argument struct (no positional indices), buffer sizes as functions of the dims, the
// variants with their CPU and CUDA entry points, and the shape limits with the reason for each.
//
//   CaseDecl<ResidualLayerNormArgs> declare() {
//     using A = ResidualLayerNormArgs;
//     return {"residual_layernorm",
//             {{"rows", &A::rows}, {"hidden", &A::hidden}},
//             {{"eps", &A::eps, kLayerNormEps}},
//             {{"x", &A::x, Role::Input, rows_x_hidden}, ...},
//             {{"unfused", residual_layernorm_unfused_cpu, FB_CUDA(residual_layernorm_unfused_cuda)}, ...},
//             {{"hidden <= 2^30", "the CUDA kernels index a row with 32-bit ints", [](const A& a) { ... }}}};
//   }
//   FB_REGISTER_CASE(declare);
//
// A case stored in every precision declares a template, `template <class T> CaseDecl<Args<T>> declare()`,
// and registers it once per element type with FB_REGISTER_CASE_DTYPES(declare): fp32, bf16 and fp16
// (kernels/common/dtype.h). Precision is data on the declaration, never a copy of the case.
#pragma once
#include <functional>
#include <memory>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "case_registry.h"
#include "checked_size.h"
#include "common/dtype.h"

namespace fusebench {

template <class Args>
struct Dim {
  const char* name;
  size_t Args::*member;
};

template <class Args>
struct Param {
  const char* name;
  float Args::*member;
  double value;
};

// How elements of type E are stored (a buffer's element type follows its member's pointer type).
template <class E>
constexpr Elem elem_of() {
  if constexpr (std::is_same_v<E, float>) return Elem::F32;
  else if constexpr (std::is_same_v<E, bf16>) return Elem::BF16;
  else if constexpr (std::is_same_v<E, fp16>) return Elem::F16;
  else {
    static_assert(std::is_same_v<E, unsigned>, "a buffer holds float, bf16, fp16 or unsigned elements");
    return Elem::U32;
  }
}

template <class Args>
struct Buffer {
  std::string name;
  std::function<void(Args&, void*)> bind;
  Role role;
  Size (*count)(const Args&);  // checked arithmetic: a count that would wrap throws (checked_size.h)
  Elem elem;

  // `member` is a pointer member of Args or of a base of Args (const T*, T*, unsigned*, ...).
  template <class M, class C>
  Buffer(const char* n, M C::*member, Role r, Size (*c)(const Args&))
      : name(n),
        bind([member](Args& a, void* p) { a.*member = static_cast<M>(p); }),
        role(r),
        count(c),
        elem(elem_of<std::remove_cv_t<std::remove_pointer_t<M>>>()) {
    static_assert(std::is_base_of_v<C, Args> && std::is_pointer_v<M>, "a buffer binds a pointer member of the args");
  }
};

template <class Args>
struct Variant {
  const char* name;
  void (*cpu)(const Args&);                         // null: no CPU implementation
  void (*cuda)(const Args&, const LaunchContext&);  // null: no CUDA implementation (or built without CUDA)
  Needs needs = Needs::Nothing;
  size_t shared_memory = 0;  // dynamic shared memory per block its CUDA kernels need (bytes)
  int min_compute_capability = 0;  // e.g. 80: its CUDA kernels use sm_80 instructions (0: any GPU)
  int max_compute_capability = 0;  // e.g. 90: its CUDA kernels are sm_90a code, which later GPUs cannot run (0: no bound)
};

template <class Args>
struct Limit {
  const char* rule;
  const char* why;
  bool (*ok)(const Args&);
};

template <class Args>
struct CaseDecl {
  const char* name;
  std::vector<Dim<Args>> dims;
  std::vector<Param<Args>> params;
  std::vector<Buffer<Args>> buffers;
  std::vector<Variant<Args>> variants;
  std::vector<Limit<Args>> limits = {};
};

namespace detail {

template <class Args>
Args args_of(const CaseDecl<Args>& d, const std::vector<int64_t>& dims) {
  Args a{};
  for (size_t i = 0; i < d.dims.size() && i < dims.size(); ++i) a.*(d.dims[i].member) = static_cast<size_t>(dims[i]);
  return a;
}

}  // namespace detail

// The type-erased registration of a declaration in precision `dtype`.
template <class Args>
CaseSpec erase(CaseDecl<Args> decl, const char* dtype) {
  auto d = std::make_shared<const CaseDecl<Args>>(std::move(decl));
  CaseSpec s;
  s.name = d->name;
  s.dtype = dtype;
  for (const auto& x : d->dims) s.dims.emplace_back(x.name);
  for (const auto& p : d->params) s.params.push_back({p.name, p.value});
  for (const auto& v : d->variants)
    s.variants.push_back({v.name, v.cpu != nullptr, v.cuda != nullptr, v.needs, v.shared_memory, v.min_compute_capability,
                          v.max_compute_capability});
  for (const auto& l : d->limits) s.limits.push_back({l.rule, l.why});
  s.buffers = [d](const std::vector<int64_t>& dims) {
    const Args a = detail::args_of(*d, dims);
    std::vector<BufferSpec> out;
    for (const auto& b : d->buffers) out.push_back({b.name, b.count(a).value(), b.role, b.elem});
    return out;
  };
  s.broken_limit = [d](const std::vector<int64_t>& dims) {
    const Args a = detail::args_of(*d, dims);
    for (size_t i = 0; i < d->limits.size(); ++i)
      if (!d->limits[i].ok(a)) return static_cast<int>(i);
    return -1;
  };
  s.bind = [d](const std::vector<int64_t>& dims, const std::vector<double>& params, const std::vector<void*>& buffers) {
    Args a = detail::args_of(*d, dims);
    for (size_t i = 0; i < d->params.size(); ++i) a.*(d->params[i].member) = static_cast<float>(params.at(i));
    for (size_t i = 0; i < d->buffers.size(); ++i) d->buffers[i].bind(a, buffers.at(i));
    return BoundCase([d, a](BackendKind backend, size_t variant, const LaunchContext& ctx) {
      const Variant<Args>& v = d->variants.at(variant);
      if (backend == BackendKind::Cpu) {
        if (v.cpu == nullptr)
          throw std::invalid_argument(std::string(d->name) + ": variant '" + v.name + "' has no CPU implementation");
        v.cpu(a);
      } else {
        if (v.cuda == nullptr)
          throw std::invalid_argument(std::string(d->name) + ": variant '" + v.name +
                                      "' has no CUDA implementation in this build");
        v.cuda(a, ctx);
      }
    });
  };
  return s;
}

}  // namespace fusebench

// A CUDA entry point, or null in a build without CUDA (where it is not declared).
#ifdef FUSEBENCH_WITH_CUDA
#define FB_CUDA(fn) (fn)
#else
#define FB_CUDA(fn) nullptr
#endif
// A CUDA entry point that only sm_90a code implements: null in a build without it (FUSEBENCH_SM90A: the
// architectures include 90 and the toolkit is CUDA 12+), so the variant is a skip there, not an error.
#if defined(FUSEBENCH_WITH_CUDA) && defined(FUSEBENCH_SM90A)
#define FB_CUDA_SM90A(fn) (fn)
#else
#define FB_CUDA_SM90A(fn) nullptr
#endif

// The standard comparison's two variants in a declaration's table: "unfused" and "fused", each with its
// CPU and (in a CUDA build) CUDA entry point, `name_unfused_cpu<T>` ... `name_fused_cuda<T>`.
#define FB_FUSED_PAIR(name)                                                      \
  {"unfused", name##_unfused_cpu<T>, FB_CUDA(name##_unfused_cuda<T>)}, {         \
    "fused", name##_fused_cpu<T>, FB_CUDA(name##_fused_cuda<T>)                  \
  }

// Declares case `name`, stored in every precision: the braces that follow are the body of its
// declaration template, with `T` the element type, `A` the argument struct `Args<T>`, `case_name` the
// case's name, and the kernels' names in scope. Registered once per precision (fp32, bf16, fp16) when
// the addon loads; each case gets a namespace of its own, so two cases' templates never meet.
#define FB_CASE(name, Args)                                   \
  namespace fusebench::cases::name {                          \
  using namespace ::fusebench;                                \
  using namespace ::fusebench::kernels;                       \
  [[maybe_unused]] constexpr const char* case_name = #name;   \
  template <class T, class A = Args<T>>                       \
  CaseDecl<A> declare();                                      \
  FB_REGISTER_CASE_DTYPES(declare);                           \
  }                                                           \
  template <class T, class A>                                 \
  ::fusebench::CaseDecl<A> fusebench::cases::name::declare()

// Registers the declaration that `fn()` returns, once, when the addon is loaded (fp32 only).
#define FB_REGISTER_CASE(fn)                              \
  [[maybe_unused]] static const bool fb_registered_##fn = \
      ::fusebench::register_case(::fusebench::erase(fn(), ::fusebench::dtype_name<float>()))

// Registers the declaration template `fn<T>()` once per precision: fp32, bf16, fp16.
#define FB_REGISTER_IN(fn, T) ::fusebench::register_case(::fusebench::erase(fn<T>(), ::fusebench::dtype_name<T>()))
#define FB_REGISTER_CASE_DTYPES(fn)                                                                      \
  [[maybe_unused]] static const bool fb_registered_##fn = FB_REGISTER_IN(fn, float) &&                  \
                                                          FB_REGISTER_IN(fn, ::fusebench::bf16) &&      \
                                                          FB_REGISTER_IN(fn, ::fusebench::fp16)
