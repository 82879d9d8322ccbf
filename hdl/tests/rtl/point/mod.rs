mod async_fifo;
mod bus;
mod counters;
mod packaged;
