/* The program sources and build options of the migrated run. $CLASP_RUNCHECK_MAP names a folder
 * that holds, for each source clasp migrated, `<hash>.orig` (its original bytes) and `<hash>.cl`
 * (the migrated ones); `tree/` (each migrated file at its original absolute path below it, for
 * programs that #include them); and `options` (the options a substituted program is built with in
 * place of its own -cl-std=).
 *
 * A program's text (its strings joined) is matched by content: every original found in it whole,
 * longest first and never overlapping, is replaced by its migrated text. So a host that prepends
 * its own definitions, joins several files into one string or passes them as several strings gets
 * the migrated files in the same places. With $CLASP_RUNCHECK_OPTIONS_ONLY set, the texts stay
 * the original ones and only the options change (run-check's run that tells a difference the
 * options alone make from one the migrated code makes). */
#include "intercept.h"

#include <dirent.h>
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* An original shorter than this is replaced only when it is a program's whole text: a short text
 * could turn up inside an unrelated program. */
#define MIN_EMBEDDED 64

struct original {
    char *text;
    size_t size;
    char hash[17];
};

static struct original *originals;
static size_t original_count;

static const char *map_dir(void) { return getenv("CLASP_RUNCHECK_MAP"); }

static char *read_file(const char *path, size_t *size) {
    FILE *f = fopen(path, "re");
    if (!f) return NULL;
    fseek(f, 0, SEEK_END);
    long length = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *text = length >= 0 ? malloc(length + 1) : NULL;
    if (text && fread(text, 1, length, f) != (size_t)length) {
        free(text);
        text = NULL;
    }
    fclose(f);
    if (text) text[length] = 0;
    if (size) *size = length;
    return text;
}

static int longest_first(const void *a, const void *b) {
    size_t x = ((const struct original *)a)->size, y = ((const struct original *)b)->size;
    return x < y ? 1 : x > y ? -1 : 0;
}

/* The originals of the map, read once. Call with the lock held. */
static void load_originals(void) {
    static int loaded;
    if (loaded) return;
    loaded = 1;
    DIR *dir = opendir(map_dir());
    if (!dir) return;
    for (struct dirent *e; (e = readdir(dir));) {
        size_t n = strlen(e->d_name);
        if (n != 21 || strcmp(e->d_name + 16, ".orig")) continue;
        struct original *grown = realloc(originals, (original_count + 1) * sizeof *grown);
        if (!grown) break;
        originals = grown;
        char path[PATH_MAX];
        snprintf(path, sizeof path, "%s/%s", map_dir(), e->d_name);
        struct original *o = &originals[original_count];
        o->text = read_file(path, &o->size);
        memcpy(o->hash, e->d_name, 16);
        o->hash[16] = 0;
        if (o->text && o->size) original_count++;
    }
    closedir(dir);
    qsort(originals, original_count, sizeof *originals, longest_first);
}

static uint64_t fnv1a(const unsigned char *data, size_t size, uint64_t hash) {
    for (size_t i = 0; i < size; i++) hash = (hash ^ data[i]) * 1099511628211ULL;
    return hash;
}

struct match {
    size_t at;
    const struct original *original;
};

static int by_position(const void *a, const void *b) {
    size_t x = ((const struct match *)a)->at, y = ((const struct match *)b)->at;
    return x < y ? -1 : x > y;
}

/* Where the originals occur in `text`, longest first, none overlapping another; sorted. */
static size_t find_originals(const char *text, size_t size, struct match **out) {
    struct match *matches = NULL;
    size_t count = 0;
    for (size_t k = 0; k < original_count; k++) {
        const struct original *o = &originals[k];
        if (o->size < MIN_EMBEDDED && o->size != size) continue;
        for (const char *p = text; (p = memmem(p, size - (p - text), o->text, o->size)); p += o->size) {
            size_t at = p - text;
            int overlaps = 0;
            for (size_t m = 0; m < count && !overlaps; m++)
                overlaps = at < matches[m].at + matches[m].original->size && matches[m].at < at + o->size;
            if (overlaps) continue;
            struct match *grown = realloc(matches, (count + 1) * sizeof *grown);
            if (!grown) break;
            matches = grown;
            matches[count++] = (struct match){at, o};
        }
    }
    qsort(matches, count, sizeof *matches, by_position);
    *out = matches;
    return count;
}

/* Appends `size` bytes to the growing text `*out` of `*used` bytes; 0 when out of memory. */
static int append(char **out, size_t *used, const char *bytes, size_t size) {
    char *grown = realloc(*out, *used + size + 1);
    if (!grown) return 0;
    memcpy(grown + *used, bytes, size);
    *used += size;
    grown[*used] = 0;
    *out = grown;
    return 1;
}

char *joined_text(cl_uint count, const char **strings, const size_t *lengths, size_t *size) {
    char *text = NULL;
    *size = 0;
    /* A NULL string is the program's error to get from the loader, not a crash here. */
    for (cl_uint i = 0; strings && i < count && strings[i]; i++)
        if (!append(&text, size, strings[i], lengths && lengths[i] ? lengths[i] : strlen(strings[i]))) break;
    return text;
}

unsigned long long content_hash(const char *text, size_t size) {
    return fnv1a((const unsigned char *)text, text ? size : 0, 14695981039346656037ULL);
}

char *substituted_source(const char *text, size_t size, int *replaced) {
    *replaced = 0;
    if (!text || !map_dir()) return NULL;
    pthread_mutex_lock(&intercept_lock);
    load_originals();
    struct match *matches;
    size_t found = find_originals(text, size, &matches);
    pthread_mutex_unlock(&intercept_lock);
    char *out = NULL;
    size_t used = 0, from = 0;
    int whole = 1;
    for (size_t m = 0; m < found && whole; m++) {
        char path[PATH_MAX];
        size_t migrated_size;
        snprintf(path, sizeof path, "%s/%s.cl", map_dir(), matches[m].original->hash);
        char *migrated = read_file(path, &migrated_size);
        whole = migrated && append(&out, &used, text + from, matches[m].at - from) &&
                append(&out, &used, migrated, migrated_size);
        from = matches[m].at + matches[m].original->size;
        free(migrated);
    }
    whole = whole && append(&out, &used, text + from, size - from);
    free(matches);
    if (!found || !whole) {
        free(out);
        return NULL;
    }
    *replaced = (int)found;
    if (getenv("CLASP_RUNCHECK_OPTIONS_ONLY")) { /* the original text, built as if migrated */
        free(out);
        return NULL;
    }
    return out;
}

/* What the migrated run knows of a program it created: whether its text was substituted, and the
 * files its text #includes (found by a line scan: a directive that a comment or a skipped branch
 * hides counts too, which only ever adds a migrated folder to search). */
struct program_info {
    cl_program program;
    int replaced;
    int built_migrated; /* its last build had the migrated run's options */
    char *includes; /* the names, each ended by a NUL, the list by an empty one */
    struct program_info *next;
};
static struct program_info *programs;

/* The names `text` #includes, in the list form above. */
static char *included_names(const char *text) {
    char *names = NULL;
    size_t used = 0;
    for (const char *line = text; line && *line; line = strchr(line, '\n'), line = line ? line + 1 : NULL) {
        const char *p = line;
        while (*p == ' ' || *p == '\t') p++;
        if (*p++ != '#') continue;
        while (*p == ' ' || *p == '\t') p++;
        if (strncmp(p, "include", 7)) continue;
        p += 7;
        while (*p == ' ' || *p == '\t') p++;
        char close = *p == '"' ? '"' : *p == '<' ? '>' : 0;
        const char *end = close ? strchr(p + 1, close) : NULL;
        const char *newline = strchr(p, '\n');
        if (!end || (newline && end > newline)) continue;
        append(&names, &used, p + 1, end - p - 1);
        append(&names, &used, "", 1);
    }
    append(&names, &used, "", 1);
    return names;
}

void remember_program(cl_program program, const char *text, int replaced) {
    struct program_info *info = calloc(1, sizeof *info);
    if (!info) return;
    info->program = program;
    info->replaced = replaced;
    info->includes = included_names(text);
    pthread_mutex_lock(&intercept_lock);
    info->next = programs;
    programs = info;
    pthread_mutex_unlock(&intercept_lock);
}

/* The program's info (NULL for a program made from binaries or IL). */
static struct program_info *info_of(cl_program program) {
    pthread_mutex_lock(&intercept_lock);
    struct program_info *info = programs;
    while (info && info->program != program) info = info->next;
    pthread_mutex_unlock(&intercept_lock);
    return info;
}

int built_as_migrated(cl_program program) {
    struct program_info *info = map_dir() ? info_of(program) : NULL;
    return info && info->built_migrated;
}

/* `-I <map>/tree<dir>` when the map holds migrated files under `dir` (made absolute), else "";
 * `*reached` is set when one of them is a file that `names` includes. */
static void migrated_include(const char *dir, size_t length, const char *names, char *out, size_t out_size,
                             int *reached) {
    char given[PATH_MAX], absolute[PATH_MAX], tree[PATH_MAX * 2], file[PATH_MAX * 3];
    struct stat info;
    out[0] = 0;
    if (!length || length >= sizeof given) return;
    memcpy(given, dir, length);
    given[length] = 0;
    if (!realpath(given, absolute)) return;
    snprintf(tree, sizeof tree, "%s/tree%s", map_dir(), absolute);
    if (stat(tree, &info) != 0 || !S_ISDIR(info.st_mode) || strchr(tree, ' ')) return;
    snprintf(out, out_size, "-I%s ", tree);
    for (const char *name = names; *name; name += strlen(name) + 1) {
        snprintf(file, sizeof file, "%s/%s", tree, name);
        if (stat(file, &info) == 0 && S_ISREG(info.st_mode)) *reached = 1;
    }
}

/* The migrated counterparts of the current folder and of every -I folder in `options`, as -I
 * options to search before the originals; `*reached` as above. */
static char *migrated_includes(const char *options, const char *names, int *reached) {
    char *out = NULL, one[PATH_MAX * 2 + 8];
    size_t used = 0;
    migrated_include(".", 1, names, one, sizeof one, reached);
    append(&out, &used, one, strlen(one));
    for (const char *p = options; *p;) {
        while (*p == ' ' || *p == '\t') p++;
        const char *word = p;
        while (*p && *p != ' ' && *p != '\t') p++;
        if (strncmp(word, "-I", 2)) continue;
        const char *dir = word + 2;
        if (dir == p) { /* "-I DIR" */
            while (*p == ' ' || *p == '\t') p++;
            dir = p;
            while (*p && *p != ' ' && *p != '\t') p++;
        }
        migrated_include(dir, p - dir, names, one, sizeof one, reached);
        append(&out, &used, one, strlen(one));
    }
    return out;
}

/* Blanks every -cl-std=... word of `options`. */
static void drop_standard(char *options) {
    for (char *p = strstr(options, "-cl-std="); p; p = strstr(p, "-cl-std=")) {
        if (p != options && p[-1] != ' ' && p[-1] != '\t') {
            p++;
            continue;
        }
        while (*p && *p != ' ' && *p != '\t') *p++ = ' ';
    }
}

/* The program's own options plus -cl-kernel-arg-info (so that arguments can be told apart); for a
 * program of the migrated run whose text was substituted or that includes a migrated file, the
 * migrated folders searched first, its -cl-std= blanked and the map's options added. */
char *build_options(cl_program program, const char *options) {
    const char *own = options ? options : "";
    struct program_info *info = map_dir() ? info_of(program) : NULL;
    int reached = 0;
    char *includes = info ? migrated_includes(own, info->includes, &reached) : NULL;
    int migrated = info && (info->replaced || reached);
    if (info) info->built_migrated = migrated;
    char *extra = NULL;
    if (migrated) {
        char path[PATH_MAX];
        snprintf(path, sizeof path, "%s/options", map_dir());
        extra = read_file(path, NULL);
    }
    char *out = NULL;
    size_t used = 0;
    /* Options only: the migrated options, but the original files. */
    if (!migrated || getenv("CLASP_RUNCHECK_OPTIONS_ONLY")) {
        free(includes);
        includes = NULL;
    }
    int whole = (!includes || append(&out, &used, includes, strlen(includes))) && append(&out, &used, own, strlen(own));
    if (whole && migrated) drop_standard(out + (includes ? strlen(includes) : 0));
    whole = whole && append(&out, &used, " -cl-kernel-arg-info ", 21);
    if (whole && extra) whole = append(&out, &used, extra, strlen(extra));
    free(includes);
    free(extra);
    if (!whole) {
        free(out);
        return NULL;
    }
    return out;
}
