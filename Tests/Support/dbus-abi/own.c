/* The shim alone: its own declarations' layout. */
#include "../../../Sources/CDBus/shim.h"
#include "layout.h"
int main(void) { return print_layout(); }
