mod async_fifo;
