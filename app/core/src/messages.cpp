#include "attnlab/core/messages.hpp"

#include "attnlab/core/util.hpp"

namespace attnlab {
namespace {

struct Entry {
    const char* key;
    const char* en;
    const char* id;
};

// Keep keys grouped by where they appear. Indonesian is written for learners,
// not translated word for word; technical terms (head, softmax) stay as used
// in Indonesian ML writing.
const Entry kMessages[] = {
    // verdict titles
    {"verdict.pass", "Passed", "Lulus"},
    {"verdict.wrong_answer", "Wrong answer", "Jawaban salah"},
    {"verdict.wrong_shape", "Wrong shape", "Bentuk salah"},
    {"verdict.non_finite", "Non-finite output (NaN or infinity)", "Keluaran tidak hingga (NaN atau tak hingga)"},
    {"verdict.compile_error", "Compile error", "Galat kompilasi"},
    {"verdict.missing_entry", "Entry point missing", "Fungsi utama tidak ditemukan"},
    {"verdict.runtime_error", "Uncaught exception", "Eksepsi tidak tertangani"},
    {"verdict.crash", "Crashed", "Program crash"},
    {"verdict.timeout", "Time limit exceeded", "Melewati batas waktu"},
    {"verdict.memory_limit", "Memory limit exceeded", "Melewati batas memori"},
    {"verdict.output_limit", "Output limit exceeded", "Melewati batas keluaran"},
    {"verdict.protocol_error", "Result channel broken", "Saluran hasil rusak"},
    {"verdict.cancelled", "Cancelled", "Dibatalkan"},
    {"verdict.internal_error", "attnlab could not check this", "attnlab tidak bisa memeriksa ini"},
    {"verdict.not_run", "Not run", "Tidak dijalankan"},

    // verdict explanations
    {"explain.pass", "All {count} cases match the Eigen reference (max error {max_error}).",
     "Semua {count} kasus cocok dengan referensi Eigen (galat maksimum {max_error})."},
    {"explain.wrong_shape", "Case {case}: expected shape {expected}, but your function returned {actual}.",
     "Kasus {case}: bentuk yang diharapkan {expected}, tetapi fungsimu mengembalikan {actual}."},
    {"explain.wrong_kind", "Case {case}: expected a {expected}, but your function returned a {actual}.",
     "Kasus {case}: yang diharapkan {expected}, tetapi fungsimu mengembalikan {actual}."},
    {"explain.wrong_answer", "Case {case}: {count} of {total} values differ from the reference (max error {max_error}; allowed |a − r| ≤ {atol} + {rtol}·|r|).",
     "Kasus {case}: {count} dari {total} nilai berbeda dari referensi (galat maksimum {max_error}; batas |a − r| ≤ {atol} + {rtol}·|r|)."},
    {"explain.mismatch", "at {index}: yours {actual}, reference {expected}", "di {index}: milikmu {actual}, referensi {expected}"},
    {"explain.mismatch_masked", "at {index}: yours {actual}, reference -inf (a masked future position must be exactly -inf)",
     "di {index}: milikmu {actual}, referensi -inf (posisi masa depan yang di-mask harus tepat -inf)"},
    {"explain.scalar_mismatch", "Case {case}: your function returned {actual}, the reference says {expected}.",
     "Kasus {case}: fungsimu mengembalikan {actual}, referensi menghasilkan {expected}."},
    {"explain.non_finite", "Case {case}: your output has {value} at {index}, where the reference has {expected}. Look for a division by zero, exp() of a large number, or a row that is entirely -inf before softmax.",
     "Kasus {case}: keluaranmu berisi {value} di {index}, padahal referensi berisi {expected}. Periksa pembagian dengan nol, exp() dari bilangan besar, atau baris yang seluruhnya -inf sebelum softmax."},
    {"explain.compile_error", "Your file did not compile. The first errors:", "Berkasmu gagal dikompilasi. Galat pertama:"},
    {"explain.source_too_large", "The source file is {size}; attnlab accepts up to 1 MB.", "Berkas sumber berukuran {size}; attnlab menerima paling besar 1 MB."},
    {"explain.defines_main", "Remove your main(): attnlab provides it and calls your function with each case.",
     "Hapus main() milikmu: attnlab sudah menyediakannya dan memanggil fungsimu untuk setiap kasus."},
    {"explain.missing_entry", "Your file does not define the function attnlab calls. Define exactly:\n    {signature}\n(same name, same parameter types, outside any namespace).",
     "Berkasmu tidak mendefinisikan fungsi yang dipanggil attnlab. Definisikan tepat seperti ini:\n    {signature}\n(nama dan tipe parameter sama, di luar namespace apa pun)."},
    {"explain.runtime_error", "Case {case}: your function threw {type}: {what}", "Kasus {case}: fungsimu melempar {type}: {what}"},
    {"explain.crash", "Case {case}: your program was killed by {signal}.", "Kasus {case}: programmu dihentikan oleh {signal}."},
    {"explain.crash_static", "Your program was killed by {signal} before your function was called (in a global or static initialiser).",
     "Programmu dihentikan oleh {signal} sebelum fungsimu dipanggil (di inisialisasi global atau static)."},
    {"explain.crash.SIGSEGV", "That is an invalid memory access: an index out of range on a raw pointer, or a dangling reference.",
     "Itu akses memori yang tidak sah: indeks di luar batas pada pointer mentah, atau referensi yang sudah tidak berlaku."},
    {"explain.crash.SIGABRT", "The program aborted: a failed assert, std::terminate, or an exception thrown where it could not be caught.",
     "Program berhenti paksa (abort): assert yang gagal, std::terminate, atau eksepsi yang dilempar di tempat yang tidak bisa ditangkap."},
    {"explain.crash.SIGFPE", "An arithmetic error: most often an integer division by zero.", "Galat aritmetika: biasanya pembagian bilangan bulat dengan nol."},
    {"explain.timeout_cpu", "Case {case}: stopped after {seconds} s of CPU time. Look for a loop that never ends.",
     "Kasus {case}: dihentikan setelah {seconds} detik waktu CPU. Cari loop yang tidak pernah berhenti."},
    {"explain.timeout_wall", "Case {case}: stopped after {seconds} s wall time. Look for a loop that never ends, or a wait on something that never comes.",
     "Kasus {case}: dihentikan setelah {seconds} detik waktu nyata. Cari loop yang tidak pernah berhenti, atau penantian yang tak pernah selesai."},
    {"explain.timeout_static", "Stopped after {seconds} s before your function was called (in a global or static initialiser).",
     "Dihentikan setelah {seconds} detik sebelum fungsimu dipanggil (di inisialisasi global atau static)."},
    {"explain.memory_limit", "Case {case}: an allocation failed under the {limit} MB memory limit.",
     "Kasus {case}: alokasi memori gagal di bawah batas {limit} MB."},
    {"explain.output_limit", "Your program printed more than {limit} KB, so it was stopped. Printing inside a loop over every element adds up fast.",
     "Programmu mencetak lebih dari {limit} KB sehingga dihentikan. Mencetak di dalam loop atas setiap elemen cepat sekali membengkak."},
    {"explain.protocol_error", "attnlab lost track of your program's results: {detail}. Do not write to file descriptor 3 or close it, and do not call exit().",
     "attnlab kehilangan jejak hasil programmu: {detail}. Jangan menulis ke file descriptor 3 atau menutupnya, dan jangan memanggil exit()."},
    {"explain.cancelled", "The check was cancelled.", "Pemeriksaan dibatalkan."},
    {"explain.internal_error", "This is attnlab's fault, not yours: {detail}", "Ini kesalahan attnlab, bukan kesalahanmu: {detail}"},
    {"explain.stdout", "Your program printed:", "Programmu mencetak:"},
    {"explain.truncated", "[… output truncated …]", "[… keluaran dipotong …]"},
    {"explain.case_line", "case {n} {name}: {verdict}", "kasus {n} {name}: {verdict}"},

    // axis names used in positions "(head 1, row 3, col 0)"
    {"dim.head", "head", "head"},
    {"dim.row", "row", "baris"},
    {"dim.col", "col", "kolom"},
    {"dim.batch", "batch", "batch"},
    {"dim.axis", "axis", "sumbu"},

    // CLI
    {"cli.status.not_started", "not started", "belum dimulai"},
    {"cli.status.attempted", "attempted", "sudah dicoba"},
    {"cli.status.passed", "passed", "lulus"},
    {"cli.list.header", "attnlab course: {passed}/{total} passed", "Kursus attnlab: {passed}/{total} lulus"},
    {"cli.list.broken", "broken exercise: {problem}", "latihan rusak: {problem}"},
    {"cli.list.next", "Next: attnlab show {id}   then edit {file}   and run attnlab check {id}",
     "Berikutnya: attnlab show {id}   lalu sunting {file}   dan jalankan attnlab check {id}"},
    {"cli.show.signature", "Write this function:", "Tulis fungsi ini:"},
    {"cli.show.file", "Your file: {file}", "Berkasmu: {file}"},
    {"cli.show.hints", "{count} hints: attnlab hint {id} 1", "{count} petunjuk: attnlab hint {id} 1"},
    {"cli.unknown_exercise", "unknown exercise \"{id}\" (attnlab list shows them)", "latihan \"{id}\" tidak dikenal (attnlab list menampilkannya)"},
    {"cli.hint.title", "Hint {n} of {count}", "Petunjuk {n} dari {count}"},
    {"cli.hint.range", "hint number must be between 1 and {count}", "nomor petunjuk harus antara 1 dan {count}"},
    {"cli.hint.more", "More: attnlab hint {id} {next}", "Berikutnya: attnlab hint {id} {next}"},
    {"cli.solution.locked", "Pass the exercise first (or use --force to look anyway).",
     "Selesaikan latihan ini dulu (atau pakai --force untuk tetap melihat)."},
    {"cli.solution.explanation", "Why it works", "Mengapa ini berhasil"},
    {"cli.reset.done", "Restored the starter to {file}.", "Starter dikembalikan ke {file}."},
    {"cli.reset.backup", "Your previous file was kept as {backup}.", "Berkasmu sebelumnya disimpan sebagai {backup}."},
    {"cli.reset.confirm", "Reset {file} to the starter? Your current code is kept as a backup. [y/N] ",
     "Kembalikan {file} ke starter? Kodemu sekarang disimpan sebagai cadangan. [y/N] "},
    {"cli.reset.aborted", "Nothing changed.", "Tidak ada yang berubah."},
    {"cli.check.checking", "Checking {file} …", "Memeriksa {file} …"},
    {"cli.check.timing", "compile {compile} ms{cached}, run {run} ms, total {total} ms", "kompilasi {compile} ms{cached}, jalan {run} ms, total {total} ms"},
    {"cli.check.cached", " (cached)", " (dari cache)"},
    {"cli.check.next", "Passed! See the explanation and reference solution: attnlab solution {id}",
     "Lulus! Lihat penjelasan dan solusi referensi: attnlab solution {id}"},
    {"cli.check.stuck", "Stuck? attnlab hint {id}", "Buntu? attnlab hint {id}"},
    {"cli.watch.start", "Watching {file}; save it to re-check. Ctrl+C stops.",
     "Mengawasi {file}; simpan untuk memeriksa ulang. Ctrl+C untuk berhenti."},
    {"cli.watch.progress.compiling", "compiling …", "mengompilasi …"},
    {"cli.watch.progress.running", "running case {n} of {count} …", "menjalankan kasus {n} dari {count} …"},
    {"cli.progress_recovered", "warning: {message}", "peringatan: {message}"},
    {"cli.course_problem", "cannot load the course: {message}", "kursus tidak bisa dimuat: {message}"},
    {"cli.dev.ok", "course OK: {count} exercises, every starter fails and every solution passes",
     "kursus OK: {count} latihan, setiap starter gagal dan setiap solusi lulus"},
    // GUI
    {"gui.course.title", "Course", "Kursus"},
    {"gui.course.progress", "{passed} of {total} passed", "{passed} dari {total} lulus"},
    {"gui.course.all_topics", "All topics", "Semua topik"},
    {"gui.no_exercise", "Choose an exercise on the left.", "Pilih latihan di sebelah kiri."},
    {"gui.tab.statement", "Task", "Soal"},
    {"gui.tab.hints", "Hints ({shown}/{count})", "Petunjuk ({shown}/{count})"},
    {"gui.tab.solution", "Solution", "Solusi"},
    {"gui.hint.first", "Show the first hint", "Tampilkan petunjuk pertama"},
    {"gui.hint.next", "Show the next hint", "Tampilkan petunjuk berikutnya"},
    {"gui.hint.all", "All hints are shown.", "Semua petunjuk sudah ditampilkan."},
    {"gui.solution.locked", "Pass the exercise to see the explanation and the reference solution here, beside your code.",
     "Selesaikan latihan ini untuk melihat penjelasan dan solusi referensi di sini, di samping kodemu."},
    {"gui.solution.reference", "Reference solution", "Solusi referensi"},
    {"gui.editor.run", "Run", "Jalankan"},
    {"gui.editor.cancel", "Cancel", "Batal"},
    {"gui.editor.save", "Save", "Simpan"},
    {"gui.editor.reset", "Reset…", "Reset…"},
    {"gui.editor.external", "Open in editor", "Buka di editor"},
    {"gui.editor.saved", "saved", "tersimpan"},
    {"gui.editor.unsaved", "unsaved changes", "belum disimpan"},
    {"gui.editor.position", "Ln {line}, Col {col}", "Baris {line}, Kol {col}"},
    {"gui.editor.conflict", "{file} changed on disk while you have unsaved edits here.",
     "{file} berubah di disk padahal suntinganmu di sini belum disimpan."},
    {"gui.editor.take_disk", "Load the file from disk", "Muat berkas dari disk"},
    {"gui.editor.keep_mine", "Keep my version", "Pertahankan versiku"},
    {"gui.reset.title", "Reset to the starter?", "Kembali ke starter?"},
    {"gui.reset.body", "Your current code is kept as a backup file next to it.",
     "Kodemu saat ini disimpan sebagai berkas cadangan di sebelahnya."},
    {"gui.reset.confirm", "Reset", "Reset"},
    {"gui.cancel", "Cancel", "Batal"},
    {"gui.results.title", "Results", "Hasil"},
    {"gui.results.none", "Press Run (Ctrl+Enter) to check your code.", "Tekan Jalankan (Ctrl+Enter) untuk memeriksa kodemu."},
    {"gui.results.queued", "Starting…", "Memulai…"},
    {"gui.results.compiling", "Compiling…", "Mengompilasi…"},
    {"gui.results.running", "Running case {n} of {count}…", "Menjalankan kasus {n} dari {count}…"},
    {"gui.results.comparing", "Comparing with the reference…", "Membandingkan dengan referensi…"},
    {"gui.results.errors", "Compiler messages (click one to jump to its line)", "Pesan kompilator (klik untuk melompat ke barisnya)"},
    {"gui.results.cases", "Cases", "Kasus"},
    {"gui.results.case", "Case", "Kasus"},
    {"gui.results.verdict", "Verdict", "Hasil"},
    {"gui.results.max_error", "Max error", "Galat maks."},
    {"gui.results.mismatches", "First mismatches", "Selisih pertama"},
    {"gui.results.position", "Position", "Posisi"},
    {"gui.results.yours", "Yours", "Milikmu"},
    {"gui.results.reference", "Reference", "Referensi"},
    {"gui.results.expected_actual", "Reference vs yours, case {n}", "Referensi vs milikmu, kasus {n}"},
    {"gui.results.slice", "showing {what}", "menampilkan {what}"},
    {"gui.results.output", "Program output", "Keluaran program"},
    {"gui.menu.file", "File", "Berkas"},
    {"gui.menu.run", "Run", "Jalankan"},
    {"gui.menu.view", "View", "Tampilan"},
    {"gui.menu.language", "Language", "Bahasa"},
    {"gui.menu.help", "Help", "Bantuan"},
    {"gui.settings.title", "Settings", "Pengaturan"},
    {"gui.settings.font_size", "Font size", "Ukuran huruf"},
    {"gui.settings.ui_scale", "Interface scale", "Skala antarmuka"},
    {"gui.settings.tab_width", "Tab width (spaces)", "Lebar tab (spasi)"},
    {"gui.settings.theme", "Theme", "Tema"},
    {"gui.settings.dark", "Dark", "Gelap"},
    {"gui.settings.light", "Light", "Terang"},
    {"gui.settings.auto_run", "Check every time the file is saved", "Periksa setiap kali berkas disimpan"},
    {"gui.settings.autosave", "Save automatically while typing", "Simpan otomatis saat mengetik"},
    {"gui.settings.language", "Language", "Bahasa"},
    {"gui.settings.where", "Saved in {file}", "Disimpan di {file}"},
    {"gui.help.title", "Keyboard shortcuts", "Pintasan keyboard"},
    {"gui.help.close", "Close (Esc)", "Tutup (Esc)"},
    {"gui.action.run", "Check the code", "Periksa kode"},
    {"gui.action.cancel", "Cancel the running check", "Batalkan pemeriksaan yang berjalan"},
    {"gui.action.save", "Save the file", "Simpan berkas"},
    {"gui.action.external", "Open the file in your own editor", "Buka berkas di editor pilihanmu"},
    {"gui.action.hint", "Show the next hint", "Tampilkan petunjuk berikutnya"},
    {"gui.action.next", "Next exercise", "Latihan berikutnya"},
    {"gui.action.prev", "Previous exercise", "Latihan sebelumnya"},
    {"gui.action.language", "Switch English / Bahasa Indonesia", "Ganti English / Bahasa Indonesia"},
    {"gui.action.settings", "Settings", "Pengaturan"},
    {"gui.action.help", "This list", "Daftar ini"},
    {"gui.action.quit", "Quit", "Keluar"},
    {"gui.action.undo", "Undo / redo in the editor", "Urungkan / ulangi di editor"},
    {"gui.action.clipboard", "Copy / cut / paste", "Salin / potong / tempel"},
    {"gui.notice.dismiss", "Dismiss", "Tutup"},
    {"gui.no_display", "attnlab's window needs a graphical display, and none was found ({reason}). The command line works without one: attnlab list, attnlab show ID, attnlab check ID (attnlab --help).",
     "Jendela attnlab membutuhkan layar grafis, dan tidak ada yang ditemukan ({reason}). Baris perintah tetap bisa dipakai tanpa layar: attnlab list, attnlab show ID, attnlab check ID (attnlab --help)."},
    // GUI: views
    {"gui.tab.results", "Results", "Hasil"},
    {"gui.tab.heatmaps", "Attention heatmaps", "Heatmap atensi"},
    {"gui.tab.stages", "Stages", "Tahapan"},
    {"gui.tab.memory", "Shapes & memory", "Bentuk & memori"},
    {"gui.tab.experiments", "Experiments", "Eksperimen"},
    {"gui.views.no_result", "Run a check first: the views show its cases.", "Jalankan pemeriksaan dulu: tampilan ini menunjukkan kasus-kasusnya."},
    {"gui.views.case", "Case", "Kasus"},
    {"gui.views.stage", "Stage", "Tahap"},
    {"gui.heatmap.none", "This case has no (head, query, key) matrices to draw. Heatmaps appear for scores, masked scores and attention weights.",
     "Kasus ini tidak punya matriks (head, query, key) untuk digambar. Heatmap muncul untuk skor, skor ter-mask, dan bobot atensi."},
    {"gui.heatmap.yours", "yours", "milikmu"},
    {"gui.heatmap.reference", "Eigen reference", "referensi Eigen"},
    {"gui.heatmap.difference", "yours − reference", "milikmu − referensi"},
    {"gui.heatmap.head", "head {h}", "head {h}"},
    {"gui.heatmap.not_probed", "Your code did not record \"{stage}\": add probe(\"{stage}\", tensor) to compare it here.",
     "Kodemu tidak merekam \"{stage}\": tambahkan probe(\"{stage}\", tensor) untuk membandingkannya di sini."},
    {"gui.heatmap.problem", "Yours cannot be drawn: {problem}.", "Milikmu tidak bisa digambar: {problem}."},
    {"gui.heatmap.masked", "masked (future, −∞)", "di-mask (masa depan, −∞)"},
    {"gui.heatmap.range", "colour range {lo} … {hi}", "rentang warna {lo} … {hi}"},
    {"gui.heatmap.max_diff", "max |yours − reference| = {value}", "maks |milikmu − referensi| = {value}"},
    {"gui.heatmap.hover", "head {h}, query {i}{qt}, key {j}{kt}", "head {h}, query {i}{qt}, key {j}{kt}"},
    {"gui.heatmap.non_finite", "{count} cells are −∞ or NaN on one side only (a mask in the wrong place, or a NaN)",
     "{count} sel bernilai −∞ atau NaN hanya di satu sisi (mask di tempat yang salah, atau NaN)"},
    {"gui.heatmap.click", "Click a heatmap to enlarge its head; right-click to export it.",
     "Klik heatmap untuk memperbesar head-nya; klik kanan untuk mengekspornya."},
    {"gui.heatmap.export_grid", "Export all as PNG", "Ekspor semua sebagai PNG"},
    {"gui.heatmap.export_one", "Export this heatmap as PNG", "Ekspor heatmap ini sebagai PNG"},
    {"gui.heatmap.exported", "Saved {file}", "Tersimpan: {file}"},
    {"gui.heatmap.close", "Close", "Tutup"},
    {"gui.stages.stage", "Stage", "Tahap"},
    {"gui.stages.reference_shape", "Reference shape", "Bentuk referensi"},
    {"gui.stages.your_shape", "Your shape", "Bentukmu"},
    {"gui.stages.max_error", "Max error", "Galat maks."},
    {"gui.stages.status", "Status", "Status"},
    {"gui.stages.match", "matches", "cocok"},
    {"gui.stages.mismatch", "differs", "berbeda"},
    {"gui.stages.shape_mismatch", "wrong shape", "bentuk salah"},
    {"gui.stages.not_probed", "not probed", "tidak di-probe"},
    {"gui.stages.first_divergence", "First stage that differs: {stage}. Everything before it matches the reference, so the bug sits between the stage above and this one.",
     "Tahap pertama yang berbeda: {stage}. Semua tahap sebelumnya cocok dengan referensi, jadi bug-nya ada di antara tahap di atas dan tahap ini."},
    {"gui.stages.all_match", "Every stage you probed matches the reference.", "Semua tahap yang kamu probe cocok dengan referensi."},
    {"gui.stages.hint", "Record intermediate tensors with probe(\"name\", tensor) using the reference's stage names.",
     "Rekam tensor antara dengan probe(\"nama\", tensor) memakai nama tahap referensi."},
    {"gui.layout.pipeline", "Splitting into heads, step by step", "Memecah menjadi head, langkah demi langkah"},
    {"gui.layout.step", "Step", "Langkah"},
    {"gui.layout.shape", "Shape", "Bentuk"},
    {"gui.layout.strides", "Strides", "Stride"},
    {"gui.layout.contiguous", "Contiguous", "Kontigu"},
    {"gui.layout.copies", "copies the data", "menyalin data"},
    {"gui.layout.view", "view (no copy)", "view (tanpa salinan)"},
    {"gui.layout.yes", "yes", "ya"},
    {"gui.layout.no", "no", "tidak"},
    {"gui.layout.batch", "batch B (0 = none)", "batch B (0 = tanpa)"},
    {"gui.layout.before", "Memory before: (T, D), token after token", "Memori sebelum: (T, D), token demi token"},
    {"gui.layout.after", "Memory after contiguous(): (H, T, hd), head after head", "Memori setelah contiguous(): (H, T, hd), head demi head"},
    {"gui.layout.cell", "offset {offset}: token {t}, head {h}, j {j}", "offset {offset}: token {t}, head {h}, j {j}"},
    {"gui.layout.cell_batch", "offset {offset}: batch {b}, token {t}, head {h}, j {j}", "offset {offset}: batch {b}, token {t}, head {h}, j {j}"},
    {"gui.layout.truncated", "showing the first {n} of {total} cells", "menampilkan {n} sel pertama dari {total}"},
    {"gui.layout.yours", "Your tensors beside the reference's", "Tensormu di samping tensor referensi"},
    {"gui.layout.first_shape_mismatch", "The shapes first differ at \"{stage}\".", "Bentuk pertama kali berbeda di \"{stage}\"."},
    {"gui.layout.invalid", "D must be divisible by H.", "D harus habis dibagi H."},
    {"gui.exp.config", "Model", "Model"},
    {"gui.exp.custom", "custom", "kustom"},
    {"gui.exp.assumed", "Assumption: {what}", "Asumsi: {what}"},
    {"gui.exp.head_dim", "head_dim = D / H", "head_dim = D / H"},
    {"gui.exp.tiles", "fills 16-wide tensor-core tiles", "mengisi tile tensor core selebar 16"},
    {"gui.exp.tiles_yes", "yes: {n} tiles per head", "ya: {n} tile per head"},
    {"gui.exp.tiles_no", "no: {hd} is not a multiple of 16", "tidak: {hd} bukan kelipatan 16"},
    {"gui.exp.params_layer", "attention parameters per layer (4·D²)", "parameter atensi per lapisan (4·D²)"},
    {"gui.exp.params_total", "attention parameters, all layers", "parameter atensi, semua lapisan"},
    {"gui.exp.matmuls_per_head", "projection matmuls, per head (3·H)", "matmul proyeksi, per head (3·H)"},
    {"gui.exp.matmuls_fused", "projection matmuls, fused QKV", "matmul proyeksi, QKV terpadu"},
    {"gui.exp.measure", "Measure on this CPU (T = {t})", "Ukur di CPU ini (T = {t})"},
    {"gui.exp.measuring", "Measuring…", "Mengukur…"},
    {"gui.exp.per_head", "per head: {n} matmuls", "per head: {n} matmul"},
    {"gui.exp.fused", "fused: 1 matmul", "terpadu: 1 matmul"},
    {"gui.exp.ratio", "fused is {ratio}× faster here", "versi terpadu {ratio}× lebih cepat di sini"},
    {"gui.exp.d_model", "d_model (D)", "d_model (D)"},
    {"gui.exp.heads", "heads (H)", "head (H)"},
    {"gui.exp.layers", "layers", "lapisan"},
    {"gui.exp.tokens", "tokens (T)", "token (T)"},
    {"cli.dev.fail", "course check failed: {count} problems", "pemeriksaan kursus gagal: {count} masalah"},
};

const std::map<std::string, const Entry*>& index() {
    static const std::map<std::string, const Entry*> m = [] {
        std::map<std::string, const Entry*> out;
        for (const Entry& e : kMessages) out[e.key] = &e;
        return out;
    }();
    return m;
}

}  // namespace

const std::string& tr(Lang lang, const std::string& key) {
    static thread_local std::map<std::string, std::string> cache[2];
    auto& c = cache[lang == Lang::Id ? 1 : 0];
    auto hit = c.find(key);
    if (hit != c.end()) return hit->second;
    auto it = index().find(key);
    std::string text = it == index().end() ? key : (lang == Lang::Id ? it->second->id : it->second->en);
    return c.emplace(key, std::move(text)).first->second;
}

std::string tr(Lang lang, const std::string& key, const std::map<std::string, std::string>& args) {
    return format_text(tr(lang, key), args);
}

std::vector<std::string> message_keys() {
    std::vector<std::string> keys;
    for (const Entry& e : kMessages) keys.push_back(e.key);
    return keys;
}

bool has_message(Lang lang, const std::string& key) {
    auto it = index().find(key);
    if (it == index().end()) return false;
    const char* text = lang == Lang::Id ? it->second->id : it->second->en;
    return text && *text;
}

}  // namespace attnlab
