// Launch reports in plain words, English and Indonesian. The data comes from
// report.hpp; only this file knows sentences.
#include "attnlab/emu/report.hpp"

#include <cstdio>
#include <sstream>

namespace attnlab::emu {


std::string thread_ranges(const std::vector<unsigned>& threads) {
    std::string out;
    for (size_t i = 0; i < threads.size();) {
        size_t j = i;
        while (j + 1 < threads.size() && threads[j + 1] == threads[j] + 1) ++j;
        if (!out.empty()) out += ", ";
        out += std::to_string(threads[i]);
        if (j > i) out += "-" + std::to_string(threads[j]);
        i = j + 1;
    }
    return out;
}

namespace {

std::string dim(const Dim3& d) {
    return "(" + std::to_string(d.x) + ", " + std::to_string(d.y) + ", " + std::to_string(d.z) + ")";
}

std::string on_line(int line, Lang lang) {
    if (line <= 0) return "";
    return (lang == Lang::Id ? " pada baris " : " on line ") + std::to_string(line);
}

// "buffer 'k' (128 floats)" / "buffer 'k' (128 float)"
std::string where(const Fault& f, Lang lang) {
    const bool id = lang == Lang::Id;
    if (f.space == MemorySpace::Global && f.buffer.empty() && f.size == 0)
        return id ? "pointer device null (tidak menunjuk ke buffer mana pun)" : "a null device pointer (no buffer at all)";
    std::string place;
    if (f.space == MemorySpace::Local)  // -fsanitize=bounds names the array by its type only
        place = (id ? "array bertipe '" : "an array of type '") + f.buffer + "'" +
                (id ? " (array lokal thread atau array __shared__, ukurannya tetap sejak dikompilasi)"
                    : " (a thread's local array or a __shared__ array, sized when compiled)");
    else if (f.space == MemorySpace::Global)
        place = (id ? "buffer global '" : "global buffer '") + f.buffer + "'";
    else if (f.buffer == "dynamic shared memory")
        place = id ? "shared memory dinamis" : "dynamic shared memory";
    else if (f.buffer.empty() || f.buffer == "shared array")
        place = id ? "array shared" : "shared array";
    else  // named by its declaration (attnlab's rewrite of a learner's __shared__ array)
        place = (id ? "array shared '" : "shared array '") + f.buffer + "'";
    const std::string n = std::to_string(f.size);
    if (id) return place + " (" + n + " elemen " + f.element_type + ", indeks sah 0.." + std::to_string(f.size - 1) + ")";
    return place + " (" + n + " " + f.element_type + (f.size == 1 ? "" : "s") + ", valid indices 0.." +
           std::to_string(f.size - 1) + ")";
}

std::string group_text(const ThreadGroup& g, Lang lang) {
    const bool id = lang == Lang::Id, one = g.threads.size() == 1;
    const std::string who = (id || one ? "thread " : "threads ") + thread_ranges(g.threads);
    if (g.what == "exited")
        return who + (id ? " sudah keluar dari kernel" : one ? " has already left the kernel" : " have already left the kernel");
    if (g.what == "at_barrier")
        return who + (id ? " menunggu di __syncthreads" : one ? " waits at __syncthreads" : " wait at __syncthreads") +
               on_line(g.line, lang);
    return who + (id ? " menunggu" : one ? " waits" : " wait") + on_line(g.line, lang);
}

std::string join_groups(const Fault& f, Lang lang) {
    std::string out;
    for (size_t i = 0; i < f.groups.size(); ++i) {
        if (i) out += i + 1 == f.groups.size() ? (lang == Lang::Id ? ", dan " : ", and ") : ", ";
        out += group_text(f.groups[i], lang);
    }
    return out;
}

std::string barrier_text(const Fault& f, Lang lang) {
    if (lang == Lang::Id)
        return "divergensi barrier di blok " + dim(f.block) + ": " + join_groups(f, lang) +
               ". Setiap thread dalam satu blok harus mencapai __syncthreads yang sama. __syncthreads "
               "di dalam cabang yang tidak diambil semua thread, atau setelah return lebih awal, "
               "bisa membuat blok macet atau memberi hasil yang salah di GPU (perilakunya tidak terdefinisi).";
    return "barrier divergence in block " + dim(f.block) + ": " + join_groups(f, lang) +
           ". Every thread of a block must reach the same __syncthreads. A __syncthreads inside a "
           "branch that not every thread takes, or after an early return, is undefined behaviour on a GPU: the "
           "block may hang or compute wrong values.";
}

std::string warp_text(const Fault& f, Lang lang) {
    const bool id = lang == Lang::Id;
    const std::string head = (id ? "operasi warp (__shfl_*_sync, __syncwarp, vote, wmma::*) di blok "
                                 : "warp operation (__shfl_*_sync, __syncwarp, vote, wmma::*) in block ") +
                             dim(f.block) + on_line(f.line, lang) + ": ";
    if (f.detail == "bad_width")
        return head + (id ? "width harus pangkat dua dari 1 sampai 32." : "width must be a power of two from 1 to 32.");
    if (f.detail == "lane_not_in_mask")
        return head + (id ? "thread " + dim(f.thread) + " memanggilnya, padahal lane-nya tidak ada di mask."
                          : "thread " + dim(f.thread) + " calls it although its lane is not in the mask.");
    if (f.detail == "wmma_partial_warp" || f.detail == "wmma_diverged") {
        // A wmma function (f.buffer) called by part of a warp: f.index holds the lanes that called it.
        const std::string wmma = f.buffer + (id ? " di blok " : " in block ") + dim(f.block) + on_line(f.line, lang) + ": ";
        if (f.detail == "wmma_diverged")
            return wmma + (id ? "lane-lane dari satu warp memanggilnya dari tempat yang berbeda (cabang yang berbeda). Fungsi wmma "
                                "dijalankan warp sebagai satu instruksi: ke-32 lane harus memanggil panggilan yang sama, bersama-sama."
                              : "lanes of one warp call it from different places (different branches). A wmma function runs as one "
                                "instruction of the warp: all 32 lanes must make the same call, together.");
        const unsigned present = unsigned(f.index);
        const int n = __builtin_popcount(present);
        std::string lanes;
        for (int l = 0; l < 32; ++l) {
            if (!(present >> l & 1)) continue;
            int e = l;
            while (e + 1 < 32 && (present >> (e + 1) & 1)) ++e;
            lanes += (lanes.empty() ? "" : ", ") + std::to_string(l) + (e > l ? "-" + std::to_string(e) : "");
            l = e;
        }
        return wmma + (id ? "hanya " + std::to_string(n) + " lane dari warp thread " + dim(f.thread) + " yang memanggilnya (lane " +
                                lanes + "); sisanya sudah keluar dari kernel, tidak ada (blok yang ukurannya bukan kelipatan 32), "
                                        "atau tidak ikut. Fungsi wmma harus dipanggil oleh ke-32 lane warp itu."
                          : "only " + std::to_string(n) + " lanes of thread " + dim(f.thread) + "'s warp call it (lanes " + lanes +
                                "); the others have left the kernel, do not exist (a block whose size is not a multiple of 32) "
                                "or stay away. A wmma function must be called by all 32 lanes of the warp.");
    }
    if (f.detail == "mismatched_ops")
        return head + (id ? "lane-lane dari satu warp tiba di operasi warp yang berbeda (atau dengan mask berbeda)"
                          : "lanes of one warp arrived at different warp operations (or with different masks)") +
               (f.groups.empty() ? std::string(".") : ": " + join_groups(f, lang) +
                    (id ? ". Setiap lane yang disebut di mask harus mencapai operasi warp yang sama, dengan mask yang sama."
                        : ". Every lane named in the mask must reach the same warp operation, with the same mask."));
    return head + join_groups(f, lang) +
           (id ? ". Setiap lane yang disebut di mask harus mencapai operasi warp yang sama."
               : ". Every lane named in the mask must reach the same warp operation.");
}

std::string access_text(const Fault& f, Lang lang) {
    const bool id = lang == Lang::Id;
    const std::string who = "thread " + dim(f.thread) + (id ? " di blok " : " of block ") + dim(f.block);
    const std::string idx = std::to_string(f.index);
    if (f.kind == FaultKind::OutOfBounds && f.space == MemorySpace::Shared && f.size == 0) {
        // Only dynamic shared memory can have no elements: the launch gave it no bytes.
        const std::string place = f.buffer.empty() || f.buffer == "dynamic shared memory" || f.buffer == "shared array"
                                      ? (id ? "shared memory dinamis" : "dynamic shared memory")
                                      : (id ? "array shared '" : "shared array '") + f.buffer + "'";
        if (id)
            return "akses di luar batas: " + who + (f.is_write ? " menulis" : " membaca") + " indeks " + idx + " dari " + place +
                   on_line(f.line, lang) +
                   ", padahal tidak ada elemennya: peluncurannya tidak memberi shared memory dinamis (ukurannya dalam byte adalah nilai "
                   "ketiga di <<<grid, block, byte>>>).";
        return "out-of-bounds access: " + who + (f.is_write ? " wrote" : " read") + " index " + idx + " of " + place +
               on_line(f.line, lang) +
               ", which has no elements: the launch gave no dynamic shared memory (its size in bytes is the third value of "
               "<<<grid, block, bytes>>>).";
    }
    if (f.kind == FaultKind::OutOfBounds && f.detail == "freed") {
        if (id)
            return "akses ke memori yang sudah dibebaskan: " + who + (f.is_write ? " menulis" : " membaca") + " indeks " + idx +
                   " dari " + where(f, lang) + on_line(f.line, lang) +
                   ", padahal buffer itu sudah dibebaskan dengan cudaFree. Panggil cudaFree setelah kernel terakhir yang memakainya.";
        return "use after free: " + who + (f.is_write ? " wrote" : " read") + " index " + idx + " of " + where(f, lang) +
               on_line(f.line, lang) + ", a buffer already released with cudaFree. Free a buffer after the last kernel that uses it.";
    }
    if (f.kind == FaultKind::OutOfBounds) {
        const bool null_pointer = f.space == MemorySpace::Global && f.buffer.empty() && f.size == 0;
        const std::string past = f.index < 0 || null_pointer ? "" :
            (id ? ", " + std::to_string(f.index - f.size + 1) + " elemen melewati ujungnya"
                : ", " + std::to_string(f.index - f.size + 1) + " past its end");
        if (id)
            return "akses di luar batas: " + who + (f.is_write ? " menulis" : " membaca") + " indeks " +
                   idx + " dari " + where(f, lang) + past + on_line(f.line, lang) + ".";
        return "out-of-bounds access: " + who + (f.is_write ? " wrote" : " read") + " index " + idx +
               " of " + where(f, lang) + past + on_line(f.line, lang) + ".";
    }
    // Uninitialised read
    if (id)
        return "membaca memori yang belum pernah ditulis: " + who + " membaca indeks " + idx + " dari " +
               where(f, lang) + on_line(f.line, lang) +
               (f.space == MemorySpace::Shared ? ", tetapi belum ada thread di blok ini yang menulisnya."
                                               : ", tetapi belum ada yang menulisnya.");
    return "read of memory never written: " + who + " read index " + idx + " of " + where(f, lang) +
           on_line(f.line, lang) +
           (f.space == MemorySpace::Shared ? ", but no thread of this block has written it."
                                           : ", but nothing has written it.");
}

// What to do about a race, from where its two accesses are: the earlier
// access on a later line is a load of the next loop round overwriting what
// another thread still reads (a barrier is missing at the end of the loop
// body); two lanes of one warp need __syncwarp, not a __syncthreads that
// would sit inside `if (tid < 32)`.
std::string race_advice(const Fault& f, Lang lang) {
    const bool id = lang == Lang::Id;
    if (f.detail == "loop_wraparound") {
        const int w = f.is_write ? f.line : f.other_line, r = f.is_write ? f.other_line : f.line;
        return id ? " Penulisan di baris " + std::to_string(w) + " sudah milik putaran berikutnya dari perulangan, "
                    "sementara thread lain masih membaca data putaran sebelumnya di baris " + std::to_string(r) +
                    " (__syncthreads di antara keduanya sudah ada, tetapi hanya mengurutkan satu putaran): tambahkan __syncthreads "
                    "di akhir badan perulangan, setelah pembacaan terakhir."
                  : " The write on line " + std::to_string(w) + " already belongs to the next round of the loop, while another "
                    "thread still reads the previous round's data on line " + std::to_string(r) +
                    " (the __syncthreads between them is there, but it orders one round only): add a __syncthreads at the end "
                    "of the loop body, after the last read.";
    }
    // (One warp = 32 consecutive x when blocks are 1-D or x is a multiple of 32, as is usual.)
    const bool same_warp = f.other_block == f.block && f.thread.y == f.other_thread.y && f.thread.z == f.other_thread.z &&
                           f.thread.x / 32 == f.other_thread.x / 32;
    if (same_warp)
        return id ? " Kedua thread ada di warp yang sama. Jika hanya thread dari satu warp yang ikut di bagian ini (seperti di "
                    "dalam if (tid < 32)), __syncwarp() di antara penulisan dan pembacaan sudah cukup; jika tidak, letakkan "
                    "__syncthreads() yang dicapai semua thread di antara keduanya."
                  : " Both threads are in the same warp. If only the threads of one warp take part here (as inside "
                    "if (tid < 32)), a __syncwarp() between the write and the read is enough; otherwise put a __syncthreads() "
                    "that every thread reaches between them.";
    return id ? " Hasilnya bergantung pada urutan thread; letakkan __syncthreads di antara penulisan dan pembacaan."
              : " The result depends on thread timing; put a __syncthreads between the write and the read.";
}

std::string global_race_text(const Fault& f, Lang lang) {
    const bool id = lang == Lang::Id;
    const bool same_block = f.other_block == f.block;
    const char* first = id ? (f.other_is_write ? "menulisnya" : "membacanya") : (f.other_is_write ? "wrote it" : "read it");
    const char* second = id ? (f.is_write ? "menulisnya" : "membacanya") : (f.is_write ? "wrote it" : "read it");
    const std::string head = (id ? "race di memori global, indeks " : "global-memory race on index ") + std::to_string(f.index) +
                             (id ? " dari " : " of ") + where(f, lang) + ": thread " + dim(f.other_thread) +
                             (id ? " di blok " : " of block ") + dim(f.other_block) + " " + first + on_line(f.other_line, lang) +
                             (id ? ", lalu thread " : ", then thread ") + dim(f.thread) + (id ? " di blok " : " of block ") +
                             dim(f.block) + " " + second + on_line(f.line, lang);
    if (same_block) return head + (id ? ", tanpa __syncthreads di antaranya." : " with no __syncthreads in between.") + race_advice(f, lang);
    return head + (id ? ". Blok-blok dari satu peluncuran berjalan dalam urutan apa pun, bahkan bersamaan: dua blok yang "
                        "menyentuh elemen yang sama memerlukan atomicAdd, atau output terpisah yang digabung oleh kernel kedua."
                      : ". The blocks of one launch run in any order, even at the same time: two blocks touching one element "
                        "need atomicAdd, or separate outputs combined by a second kernel.");
}

// Two sources: the emulator's own check of an access (buffer and index
// known), or -fsanitize=alignment on a typed pointer (its type, and how many
// bytes past an aligned address it points, in `index`).
std::string misaligned_text(const Fault& f, Lang lang) {
    const bool id = lang == Lang::Id;
    if (f.buffer.rfind("wmma::", 0) == 0) {  // a wmma load or store: its pointer, or its ldm
        const std::string who = "thread " + dim(f.thread) + (id ? " di blok " : " of block ") + dim(f.block);
        if (f.detail == "ldm") {
            const std::string multiple = f.element_type == "float" ? "4" : "8";
            return id ? "ldm tidak sah: " + who + " memanggil " + f.buffer + " dengan ldm = " + std::to_string(f.index) +
                            on_line(f.line, lang) + ". Untuk elemen " + f.element_type + ", ldm (jarak antarbaris, dalam elemen) harus kelipatan " +
                            multiple + " (16 byte), agar setiap baris tile dimulai di alamat yang sejajar."
                      : "invalid ldm: " + who + " called " + f.buffer + " with ldm = " + std::to_string(f.index) + on_line(f.line, lang) +
                            ". For " + f.element_type + " elements, ldm (the distance between rows, in elements) must be a multiple of " +
                            multiple + " (16 bytes), so that every row of the tile starts at an aligned address.";
        }
        return id ? "alamat tidak sejajar: " + who + " memberi " + f.buffer + " pointer " + f.element_type + " yang menunjuk " +
                        std::to_string(f.index) + " byte setelah alamat kelipatan 32" + on_line(f.line, lang) +
                        ". Load dan store wmma memerlukan pointer yang sejajar 256 bit (32 byte): pojok tile di baris r, kolom c "
                        "harus memenuhi (r·ldm + c)·sizeof(elemen) kelipatan 32, dihitung dari awal buffer yang sejajar."
                  : "misaligned address: " + who + " passed " + f.buffer + " a " + f.element_type + " pointer " +
                        std::to_string(f.index) + " bytes past a multiple of 32" + on_line(f.line, lang) +
                        ". A wmma load or store needs a 256-bit (32-byte) aligned pointer: a tile's corner at row r, column c "
                        "needs (r·ldm + c)·sizeof(element) to be a multiple of 32, counted from an aligned buffer start.";
    }
    const std::string bytes = f.detail.empty() ? "?" : f.detail;
    const std::string who = "thread " + dim(f.thread) + (id ? " di blok " : " of block ") + dim(f.block);
    const std::string what = f.size == 0
        ? (id ? "melalui pointer bertipe '" + f.buffer + "' yang menunjuk " + std::to_string(f.index) + " byte setelah alamat kelipatan " + bytes
              : "through a pointer of type '" + f.buffer + "' that points " + std::to_string(f.index) + " bytes past a multiple of " + bytes)
        : (id ? bytes + " byte sekaligus mulai dari indeks " + std::to_string(f.index) + " dari " + where(f, lang)
              : bytes + " bytes at once from index " + std::to_string(f.index) + " of " + where(f, lang));
    if (id)
        return "alamat tidak sejajar: " + who + (f.is_write ? " menulis " : " membaca ") + what + on_line(f.line, lang) +
               ". Akses " + bytes + " byte memerlukan alamat kelipatan " + bytes +
               " (pointer float4 harus menunjuk ke indeks float kelipatan 4, dari awal buffer yang sejajar).";
    return "misaligned address: " + who + (f.is_write ? " wrote " : " read ") + what + on_line(f.line, lang) + ". A " + bytes +
           "-byte access needs an address that is a multiple of " + bytes +
           " (a float4 pointer must point at a float index that is a multiple of 4, counted from an aligned buffer start).";
}

std::string race_text(const Fault& f, Lang lang) {
    const bool id = lang == Lang::Id;
    const std::string idx = std::to_string(f.index);
    const char* first = id ? (f.other_is_write ? "menulisnya" : "membacanya") : (f.other_is_write ? "wrote it" : "read it");
    const char* second = id ? (f.is_write ? "menulisnya" : "membacanya") : (f.is_write ? "wrote it" : "read it");
    if (id)
        return "race di shared memory, blok " + dim(f.block) + ", indeks " + idx + " dari " + where(f, lang) +
               ": thread " + dim(f.other_thread) + " " + first + on_line(f.other_line, lang) +
               ", lalu thread " + dim(f.thread) + " " + second + on_line(f.line, lang) +
               ", tanpa __syncthreads di antaranya." + race_advice(f, lang);
    return "shared-memory race in block " + dim(f.block) + " on index " + idx + " of " + where(f, lang) +
           ": thread " + dim(f.other_thread) + " " + first + on_line(f.other_line, lang) + ", then thread " +
           dim(f.thread) + " " + second + on_line(f.line, lang) + " with no __syncthreads in between." + race_advice(f, lang);
}

std::string launch_text(const Fault& f, Lang lang) {
    const bool id = lang == Lang::Id;
    const std::string n = std::to_string(f.size), limit = std::to_string(f.index);
    std::string why;
    if (f.detail == "empty_launch")
        why = id ? "ukuran grid dan blok harus minimal 1 di setiap dimensi" : "grid and block sizes must be at least 1 in every dimension";
    else if (f.detail == "block_too_large")
        why = id ? "satu blok berisi paling banyak " + limit + " thread (x, y <= 1024, z <= 64), blok ini " + n
                 : "a block holds at most " + limit + " threads (x, y <= 1024, z <= 64); this one has " + n;
    else if (f.detail == "grid_too_large")
        why = id ? "grid y dan z paling besar " + limit + ", di sini " + n : "grid y and z are at most " + limit + ", here " + n;
    else if (f.detail == "shared_too_large")
        why = id ? "shared memory dinamis " + n + " byte melebihi batas " + limit + " byte"
                 : "dynamic shared memory of " + n + " bytes exceeds the limit of " + limit + " bytes";
    else if (f.detail == "shared_static_too_large")
        why = id ? "array __shared__ statis kernel ini berjumlah " + n + " byte, lebih dari " + limit +
                       " byte yang boleh dimiliki array statis (di GPU, ptxas menolaknya: \"uses too much shared data\"); "
                       "pakai shared memory dinamis (extern __shared__) dengan cudaFuncSetAttribute, atau tile yang lebih kecil"
                 : "the kernel's static __shared__ arrays take " + n + " bytes, more than the " + limit +
                       " bytes static arrays may have (on a GPU ptxas refuses it: \"uses too much shared data\"); use dynamic "
                       "shared memory (extern __shared__) with cudaFuncSetAttribute, or smaller tiles";
    else if (f.detail == "shared_needs_opt_in")
        why = id ? "peluncuran meminta " + n + " byte shared memory dinamis, lebih dari " + limit +
                       " byte yang didapat setiap kernel tanpa meminta; panggil dulu cudaFuncSetAttribute(kernel, "
                       "cudaFuncAttributeMaxDynamicSharedMemorySize, " + n + ") (di GPU: cudaErrorInvalidValue)"
                 : "the launch asks for " + n + " bytes of dynamic shared memory, above the " + limit +
                       " bytes every kernel gets without asking; call cudaFuncSetAttribute(kernel, "
                       "cudaFuncAttributeMaxDynamicSharedMemorySize, " + n + ") first (cudaErrorInvalidValue on a GPU)";
    else if (f.detail == "shared_above_arch")
        why = id ? "shared memory " + n + " byte per blok melebihi batas arsitektur ini, " + limit +
                       " byte, bahkan dengan cudaFuncSetAttribute (di GPU: cudaErrorInvalidValue)"
                 : n + " bytes of shared memory per block exceed this architecture's limit of " + limit +
                       " bytes, even with cudaFuncSetAttribute (cudaErrorInvalidValue on a GPU)";
    else if (f.detail == "too_many_registers")
        why = id ? "registernya tidak cukup: " + n + " register per blok melebihi " + limit +
                       " register per SM (di GPU: cudaErrorLaunchOutOfResources); kecilkan blok atau kurangi register per thread"
                 : "too many resources requested: " + n + " registers per block exceed the " + limit +
                       " registers of an SM (cudaErrorLaunchOutOfResources on a GPU); use smaller blocks or fewer registers per thread";
    else if (f.detail == "nested_launch")
        why = id ? "kernel tidak dapat meluncurkan kernel lain di emulator" : "a kernel cannot launch another kernel in the emulator";
    else
        why = f.detail;
    return (id ? "konfigurasi peluncuran tidak sah: " : "invalid launch configuration: ") + why + ".";
}

}  // namespace

std::string describe_fault(const Fault& f, Lang lang) {
    const bool id = lang == Lang::Id;
    std::string text;
    switch (f.kind) {
    case FaultKind::None: return "";
    case FaultKind::BarrierDivergence: text = barrier_text(f, lang); break;
    case FaultKind::WarpDivergence: text = warp_text(f, lang); break;
    case FaultKind::OutOfBounds:
    case FaultKind::UninitializedRead: text = access_text(f, lang); break;
    case FaultKind::SharedRace: text = race_text(f, lang); break;
    case FaultKind::GlobalRace: text = global_race_text(f, lang); break;
    case FaultKind::MisalignedAddress: text = misaligned_text(f, lang); break;
    case FaultKind::DeviceAssert:
        text = id ? "assert gagal di thread " + dim(f.thread) + " blok " + dim(f.block) + on_line(f.line, lang) + ": " + f.detail +
                        " (di GPU: cudaErrorAssert)"
                  : "assertion failed in thread " + dim(f.thread) + " of block " + dim(f.block) + on_line(f.line, lang) + ": " +
                        f.detail + " (cudaErrorAssert on a GPU)";
        break;
    case FaultKind::InvalidLaunch: text = launch_text(f, lang); break;
    case FaultKind::StepLimit:
        text = id ? "thread " + dim(f.thread) + " di blok " + dim(f.block) +
                        " terus berjalan melewati batas langkah" + on_line(f.line, lang) +
                        ": kemungkinan perulangan tanpa akhir."
                  : "thread " + dim(f.thread) + " of block " + dim(f.block) +
                        " kept running past the step budget" + on_line(f.line, lang) +
                        ": probably an endless loop.";
        break;
    case FaultKind::KernelException:
        text = (id ? "pengecualian C++ lolos dari kernel di thread " : "a C++ exception escaped the kernel in thread ") +
               dim(f.thread) + (id ? " di blok " : " of block ") + dim(f.block) + ": " + f.detail;
        break;
    }
    const std::string tool = sanitizer_tool(f.kind);
    const std::string stopped = id ? " Kernel dihentikan." : " The kernel was stopped.";
    return (tool == "launch" ? "" : tool + ": ") + text + stopped;
}

std::string describe_counters(const LaunchCounters& c, Lang lang) {
    const bool id = lang == Lang::Id;
    char ratio_loads[32], ratio_stores[32];
    std::snprintf(ratio_loads, sizeof ratio_loads, "%.2f", c.sectors_per_load_request());
    std::snprintf(ratio_stores, sizeof ratio_stores, "%.2f", c.sectors_per_store_request());
    std::ostringstream o;
    auto n = [](int64_t v) { return std::to_string(v); };
    if (id) {
        o << "Pembacaan global: " << n(c.global_load_requests) << " request, " << n(c.global_load_sectors)
          << " sektor (" << ratio_loads << " sektor/request; 4 = pembacaan float yang ter-coalesce sempurna, 32 = setiap lane di sektornya sendiri).\n"
          << "Penulisan global: " << n(c.global_store_requests) << " request, " << n(c.global_store_sectors)
          << " sektor (" << ratio_stores << " sektor/request).\n"
          << "Shared memory: " << n(c.shared_load_requests) << " baca + " << n(c.shared_store_requests)
          << " tulis, " << n(c.shared_wavefronts) << " wavefront, " << n(c.shared_bank_conflicts)
          << " bank conflict (putaran tambahan; broadcast bukan conflict).\n"
          << "Barrier: " << n(c.barriers) << " __syncthreads selesai; operasi warp: " << n(c.warp_syncs)
          << "; request dengan lane tidak aktif: " << n(c.partial_requests) << ".\n"
          << "Byte global: " << n(c.global_bytes_read) << " dibaca, " << n(c.global_bytes_written)
          << " ditulis; atomik: " << n(c.global_atomics) << "; halaman 4 KiB yang disentuh per blok (dijumlahkan): "
          << n(c.global_pages) << ".\n";
    } else {
        o << "Global loads: " << n(c.global_load_requests) << " requests, " << n(c.global_load_sectors)
          << " sectors (" << ratio_loads << " sectors/request; 4 = perfectly coalesced floats, 32 = every lane in its own sector).\n"
          << "Global stores: " << n(c.global_store_requests) << " requests, " << n(c.global_store_sectors)
          << " sectors (" << ratio_stores << " sectors/request).\n"
          << "Shared memory: " << n(c.shared_load_requests) << " loads + " << n(c.shared_store_requests)
          << " stores, " << n(c.shared_wavefronts) << " wavefronts, " << n(c.shared_bank_conflicts)
          << " bank conflicts (extra passes; a broadcast is not a conflict).\n"
          << "Barriers: " << n(c.barriers) << " __syncthreads completed; warp operations: " << n(c.warp_syncs)
          << "; requests with inactive lanes: " << n(c.partial_requests) << ".\n"
          << "Global bytes: " << n(c.global_bytes_read) << " read, " << n(c.global_bytes_written)
          << " written; atomics: " << n(c.global_atomics) << "; 4 KiB pages touched per block (summed): "
          << n(c.global_pages) << ".\n";
    }
    return o.str();
}

std::string describe_launch(const LaunchReport& r, Lang lang) {
    const bool id = lang == Lang::Id;
    std::string out = r.kernel + "<<<" + dim(r.grid) + ", " + dim(r.block) + ", " +
                      std::to_string(r.dynamic_shared_bytes) + ">>>: " +
                      (r.ok() ? (id ? "selesai" : "completed") : (id ? "dihentikan" : "stopped")) + "\n";
    if (!r.ok()) out += describe_fault(r.fault, lang) + "\n";
    return out + describe_counters(r.counters, lang);
}

}  // namespace attnlab::emu
