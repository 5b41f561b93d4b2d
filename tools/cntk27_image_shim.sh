#!/usr/bin/env bash
# Builds stand-ins for the four system libraries that CNTK 2.7's image reader plugin (and its OpenCV 3.1)
# link against and that current Debian no longer ships, so that the reference CNTK 2.7 can read PNG images:
#   libpng12.so.0   forwards every png_* function OpenCV calls to the system libpng16 (symbol version PNG12_0;
#                   png_create_read/write_struct are told libpng16's version so that its version check passes)
#   libjpeg.so.8    LIBJPEG_8.0 symbols that return 0 (JPEG files cannot be read: use PNG)
#   libjasper.so.1  jas_* symbols that return 0 (no JPEG 2000)
#   libtiff.so.5    the system libtiff.so.6 (same LIBTIFF_4.0 symbol version)
# usage: tools/cntk27_image_shim.sh CNTK27_SITE_PACKAGES/cntk/libs OUTDIR
# then:  LD_LIBRARY_PATH=OUTDIR python-cntk27 script.py
set -euo pipefail
LIBS="$1"; OUT="$2"
mkdir -p "$OUT/src"
cd "$OUT/src"
undefined() {
    for f in "$LIBS"/libopencv_imgcodecs.so.3.1 "$LIBS"/Cntk.Deserializers.Image-2.7.so "$LIBS"/Cntk.DelayLoadedExtensions-2.7.so; do
        objdump -T "$f" | awk '/\*UND\*/ {print $NF}'
    done | grep -E "$1" | sort -u
}
undefined '^png_' > png.txt
undefined '^jpeg_' > jpeg.txt
undefined '^jas_' > jas.txt
trampolines() {  # $1: list, $2: jump target expression prefix ("*p_" for a pointer, "" for a stub name)
    echo '__asm__('
    while read -r s; do
        case "$s" in
            png_create_read_struct|png_create_write_struct) target="${s}_12" ;;
            *) if [ "$2" = ptr ]; then target="*p_$s(%rip)"; else target="$2"; fi ;;
        esac
        printf '".globl %s\\n.type %s,@function\\n%s: jmp %s\\n"\n' "$s" "$s" "$s" "$target"
    done < "$1"
    echo ');'
}
{
    echo '#define _GNU_SOURCE'
    echo '#include <dlfcn.h>'
    echo '#include <stdio.h>'
    echo '#include <stdlib.h>'
    while read -r s; do echo "void *p_$s;"; done < png.txt
    echo 'static void load(void) __attribute__((constructor));'
    echo 'static void load(void) {'
    echo '    void *h = dlopen("libpng16.so.16", RTLD_NOW | RTLD_LOCAL);'
    echo '    if (!h) { fprintf(stderr, "libpng12 shim: %s\n", dlerror()); abort(); }'
    while read -r s; do echo "    p_$s = dlsym(h, \"$s\");"; done < png.txt
    echo '}'
    echo 'typedef void *(*create_fn)(const char *, void *, void *, void *);'
    for s in png_create_read_struct png_create_write_struct; do
        echo "void *${s}_12(const char *v, void *a, void *b, void *c) { (void)v; return ((create_fn)p_$s)(\"1.6.0\", a, b, c); }"
    done
    trampolines png.txt ptr
} > png12.c
{ echo 'int jpeg_stub(void) { return 0; }'; trampolines jpeg.txt jpeg_stub; } > jpeg8.c
{ echo 'int jas_stub(void) { return 0; }'; trampolines jas.txt jas_stub; } > jas1.c
version_script() { echo "$2 {"; echo ' global:'; sed 's/.*/  &;/' "$1"; echo ' local: *;'; echo '};'; }
version_script png.txt PNG12_0 > png12.map
version_script jpeg.txt LIBJPEG_8.0 > jpeg8.map
cd "$OUT"
gcc -shared -fPIC -O1 -o libpng12.so.0 src/png12.c -Wl,--version-script=src/png12.map -Wl,-soname,libpng12.so.0 -ldl
gcc -shared -fPIC -o libjpeg.so.8 src/jpeg8.c -Wl,--version-script=src/jpeg8.map -Wl,-soname,libjpeg.so.8
gcc -shared -fPIC -o libjasper.so.1 src/jas1.c -Wl,-soname,libjasper.so.1
ln -sf "$(ldconfig -p | awk '/libtiff.so.6 .*x86-64/ {print $NF; exit}')" libtiff.so.5
echo "$OUT"
