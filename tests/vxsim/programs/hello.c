// Console and exit code from C: two lines on the console, exit code 7.
static void put(const char* s) {
  volatile char* cout = (volatile char*)0x40;  // IO_COUT_ADDR + hart 0
  while (*s) *cout = *s++;
}

int main(void) {
  put("hello from vxsim\n");
  put("second line without newline");
  return 7;
}
