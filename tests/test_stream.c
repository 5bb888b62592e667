/* test_stream.c - PLACEHOLDER: the suite of clscan_scan_host is being written; fails until then. */
int main(void) { return 1; }
