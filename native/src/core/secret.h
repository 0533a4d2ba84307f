// Memory for key material: pages excluded from core dumps, locked when the process may, erased on release.
#pragma once

#include <cstddef>
#include <new>
#include <utility>

namespace ferry {

// Returns zeroed memory of at most kSecretSlot bytes from the secret arena (never null: throws
// std::bad_alloc). Thread-safe.
constexpr size_t kSecretSlot = 256;
void* secret_alloc(size_t n);
// Erases and returns a slot to the arena. Thread-safe; null is ignored.
void secret_free(void* p);

// One T in the secret arena: constructed in place, erased when destroyed. Not copyable (a copy would be
// a second place to erase); movable by handing over the slot.
template <typename T>
class Secret {
  static_assert(sizeof(T) <= kSecretSlot, "a Secret<T> must fit one arena slot");

 public:
  Secret() : p_(new (secret_alloc(sizeof(T))) T()) {}
  explicit Secret(const T& v) : p_(new (secret_alloc(sizeof(T))) T(v)) {}
  ~Secret() { reset(); }
  Secret(const Secret&) = delete;
  Secret& operator=(const Secret&) = delete;
  Secret(Secret&& o) noexcept : p_(std::exchange(o.p_, nullptr)) {}
  Secret& operator=(Secret&& o) noexcept {
    if (this != &o) {
      reset();
      p_ = std::exchange(o.p_, nullptr);
    }
    return *this;
  }
  T& operator*() const { return *p_; }
  T* operator->() const { return p_; }
  T* get() const { return p_; }

 private:
  void reset() {
    if (!p_) return;
    p_->~T();
    secret_free(p_);
    p_ = nullptr;
  }
  T* p_;
};

}  // namespace ferry
