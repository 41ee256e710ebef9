#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mathx.h"

int main(int argc, char **argv) {
    if (argc != 4) {
        fprintf(stderr, "usage: calc hyp|gcd A B\n");
        return 2;
    }
    if (strcmp(argv[1], "hyp") == 0) {
        printf("%.3f\n", hypotenuse(atof(argv[2]), atof(argv[3])));
    } else if (strcmp(argv[1], "gcd") == 0) {
        printf("%ld\n", gcd(atol(argv[2]), atol(argv[3])));
    } else {
        fprintf(stderr, "unknown operation: %s\n", argv[1]);
        return 2;
    }
    return 0;
}
