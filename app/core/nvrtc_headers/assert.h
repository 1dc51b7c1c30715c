#pragma once
#ifndef assert
#define assert(e) ((e) ? (void)0 : __trap())
#endif
