// A C program that faults on a known line (test_faults.cpp checks "fault_line.c:9").
static volatile int sink;

int main(void) {
  volatile int* null_page = (volatile int*)0x20;
  int x = 3;
  sink = x;
  for (int i = 0; i < 3; ++i) sink += i;
  *null_page = sink;  // line 9: store to the unmapped null page
  return 0;
}
