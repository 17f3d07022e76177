# cmake -DINPUT=file -DOUTPUT=out.cpp -P embed_bytes.cmake: INPUT's bytes as
# `floor_output` and `floor_output_size` (bench/static_print.cpp).
file(READ ${INPUT} hex HEX)
string(LENGTH "${hex}" digits)
math(EXPR size "${digits} / 2")
string(REGEX REPLACE "([0-9a-f][0-9a-f])" "0x\\1," bytes "${hex}")
file(WRITE ${OUTPUT} "#include <cstddef>\nextern const unsigned char floor_output[];\nextern const std::size_t floor_output_size;\nconst unsigned char floor_output[] = {${bytes}};\nconst std::size_t floor_output_size = ${size};\n")
