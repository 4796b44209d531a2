#include "api_util.h"
int main(void) { TH_SKIP("not written yet"); }
