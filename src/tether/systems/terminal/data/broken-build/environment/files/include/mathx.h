#ifndef MATHX_H
#define MATHX_H

double hypotenuse(double a, double b);
long gcd(long a, long b);

#endif
