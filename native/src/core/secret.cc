// The secret arena: 64 KiB chunks of slots, mapped privately, MADV_DONTDUMP, mlock'ed where allowed.
#include "secret.h"

#include <openssl/crypto.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <vector>

#if defined(__linux__)
#include <sys/mman.h>
#endif

namespace ferry {

namespace {

constexpr size_t kChunk = 64 * 1024;

struct Arena {
  std::mutex mu;
  std::vector<void*> free_slots;  // guarded by mu; capacity for every slot, so freeing never allocates
  size_t total = 0;               // guarded by mu

  void grow() {
#if defined(__linux__)
    void* p = mmap(nullptr, kChunk, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) throw std::bad_alloc();
    madvise(p, kChunk, MADV_DONTDUMP);  // keys never reach a core file
    mlock(p, kChunk);                   // nor swap, when RLIMIT_MEMLOCK allows (best effort)
#else
    void* p = std::calloc(1, kChunk);
    if (!p) throw std::bad_alloc();
#endif
    total += kChunk / kSecretSlot;
    free_slots.reserve(total);
    for (size_t off = 0; off + kSecretSlot <= kChunk; off += kSecretSlot)
      free_slots.push_back(static_cast<uint8_t*>(p) + off);
  }
};

// Never destroyed: secrets may be released during static destruction in any order.
Arena& arena() {
  static Arena* a = new Arena();
  return *a;
}

}  // namespace

void* secret_alloc(size_t n) {
  if (n > kSecretSlot) throw std::bad_alloc();
  Arena& a = arena();
  std::lock_guard<std::mutex> lock(a.mu);
  if (a.free_slots.empty()) a.grow();
  void* p = a.free_slots.back();
  a.free_slots.pop_back();
  std::memset(p, 0, kSecretSlot);
  return p;
}

void secret_free(void* p) {
  if (!p) return;
  OPENSSL_cleanse(p, kSecretSlot);
  Arena& a = arena();
  std::lock_guard<std::mutex> lock(a.mu);
  a.free_slots.push_back(p);
}

}  // namespace ferry
