mod async_fifo;
mod bus;
