// SPDX-License-Identifier: Apache-2.0
//
// block_csr: the standard AXI4-Lite control/status window of a dataplane block.
//
// Every block (gre_decap, the VXLAN decap/encap, ...) exposes the same layout in its own
// 4 KiB window (docs/gre_decap.md "Register map", docs/vxlan.md "vtep_top register map"):
//
//   0x000            ID               RO   ID_VALUE
//   0x004            PARAMS           RO   PARAMS_VALUE
//   0x008            CONTROL          RW   config register 0
//   0x00C            COUNTER_CLEAR    WO   write 1 to bit 0: zero every counter (reads 0, OKAY)
//   0x010 + 4*(i-1)  config reg i     RW   i = 1 .. NUM_REGS-1
//   0x100 + 16*n     outcome n        RO   +0 PKTS_LO, +4 PKTS_HI, +8 BYTES_LO, +C BYTES_HI
//   0x200            TX               RO   +0 PKTS_LO, +4 PKTS_HI, +8 BYTES_LO, +C BYTES_HI
//
// AXI4-Lite behaviour (the slave front end is axil_reg_if)
//   * ADDR_W-bit byte address, 32-bit data. Address bits [1:0] are ignored (word access only);
//     all other address bits are decoded (an address with bits set above 0x3FF is unmapped).
//   * One write and one read may be in flight at the same time (the two channels are
//     independent); each channel accepts its next request after its response was taken.
//   * Write: AW and W are accepted in either order or together; B is raised in the cycle
//     after both are present, and the register holds the new value from the cycle after B
//     (the write decode is registered: no path from the handshake to the register file).
//   * Read: AR is accepted when no R is pending; the register is read in the cycle after the
//     AR handshake (R1), selected in the next (R2) and R follows in the cycle after that
//     (three cycles after AR), at any traffic (the counters' read port is their own).
//   * WSTRB selects byte lanes of the config registers; a write with WSTRB = 0 changes
//     nothing (and still answers OKAY on a writable address).
//   * Unmapped addresses (reads and writes) and writes to read-only registers answer SLVERR
//     (2'b10) with read data 0. AWPROT/ARPROT are ignored.
//
// Config registers
//   * regs[32*i +: 32] is config register i; reset value REG_RESET[32*i +: 32]. Only the bits
//     set in REG_WMASK[32*i +: 32] are writable; the others keep their reset value (so a field
//     narrower than 32 bits reads back exactly as wide as it is).
//
// Counters
//   * An outcome event presented in cycle c updates its counter in cycle c + 3 (stages E1,
//     E2: read, E3: add and write) and is in the value of every read whose AR handshake is
//     in cycle c + 3 or later (and of no earlier one); a TX event likewise (three registers
//     before the TX counters). Outcome codes >= NUM_OUTCOMES are not counted. One stat event and one tx event may come in every cycle; none is lost.
//   * The outcome counters are one distributed (LUT) RAM of 2**SLOT_W words of {packets,
//     bytes} (64 bits each), updated by one read-modify-write per cycle: an event reads its
//     word in E2 (asynchronous read, registered), adds 1 and its length with one pair of
//     adders in E3 and writes it back; back-to-back events on one counter take E3's last
//     result instead of the word read (forwarding). A second copy of the RAM (the same
//     writes) serves the AXI4-Lite reads.
//     The TX counter pair is in flip-flops with its own adders.
//   * COUNTER_CLEAR never loses an event. Accepted in cycle W, it sets every flag of the HI
//     latches in W + 1, and zeroes the TX counters and sets a "reads as zero" flag per
//     outcome counter (flip-flops) in W + 2 (reads in W + 2 already return 0); an event
//     reaching a counter in that cycle or later
//     counts from zero and clears that counter's flag (next value = (clear ? 0 : count) +
//     increment). So an event presented from cycle W - 1 on is counted after the clear, an
//     earlier one before it (as with one input register and the clear acted on at once);
//     a read whose AR handshake is in W + 1 (B's cycle) or later sees the clear.
//   * HI latch: each counter has its own 32-bit latch (outcomes: LUT RAM, TX: flip-flops).
//     Reading a _LO register returns bits 31:0 and copies bits 63:32 of that same counter,
//     as read in R1, into its latch (written in R2); reading _HI returns the latch. Latches
//     are zeroed by reset and by COUNTER_CLEAR (a latch a _LO read would write in the cycle
//     after the clear is zeroed too, as if written before it).
//   * The RAMs are not reset: reset sets every flag (counters and latches read 0).

`default_nettype none

module block_csr #(
    // Value of the ID register (0x000)
    parameter logic [31:0]          ID_VALUE     = 32'h0,
    // Value of the PARAMS register (0x004)
    parameter logic [31:0]          PARAMS_VALUE = 32'h0,
    // Number of outcome counters at 0x100 + 16*n (1..16); stat_outcome codes 0..NUM_OUTCOMES-1
    parameter int                   NUM_OUTCOMES = 16,
    // Number of RW config registers (1..61): reg 0 = CONTROL at 0x008, reg i >= 1 at
    // 0x010 + 4*(i-1)
    parameter int                   NUM_REGS     = 1,
    // Reset values of the config registers, reg i in bits [32*i +: 32]
    parameter logic [NUM_REGS*32-1:0] REG_RESET  = '0,
    // Writable bits of the config registers (same packing); other bits hold their reset value
    parameter logic [NUM_REGS*32-1:0] REG_WMASK  = '1,
    // AXI4-Lite byte address width (10..32)
    parameter int                   ADDR_W       = 12
) (
    input  wire logic                  clk,
    input  wire logic                  rst,

    // AXI4-Lite slave
    input  wire logic [ADDR_W-1:0]     s_axil_awaddr,
    input  wire logic [2:0]            s_axil_awprot,
    input  wire logic                  s_axil_awvalid,
    output      logic                  s_axil_awready,
    input  wire logic [31:0]           s_axil_wdata,
    input  wire logic [3:0]            s_axil_wstrb,
    input  wire logic                  s_axil_wvalid,
    output      logic                  s_axil_wready,
    output      logic [1:0]            s_axil_bresp,
    output      logic                  s_axil_bvalid,
    input  wire logic                  s_axil_bready,
    input  wire logic [ADDR_W-1:0]     s_axil_araddr,
    input  wire logic [2:0]            s_axil_arprot,
    input  wire logic                  s_axil_arvalid,
    output      logic                  s_axil_arready,
    output      logic [31:0]           s_axil_rdata,
    output      logic [1:0]            s_axil_rresp,
    output      logic                  s_axil_rvalid,
    input  wire logic                  s_axil_rready,

    // Per-input-frame outcome events (one per frame)
    input  wire logic                  stat_valid,
    input  wire logic [3:0]            stat_outcome,
    input  wire logic [15:0]           stat_len,

    // Per-transmitted-frame events (one per whole output frame)
    input  wire logic                  tx_valid,
    input  wire logic [15:0]           tx_len,

    // Config registers, reg i in bits [32*i +: 32]
    output      logic [NUM_REGS*32-1:0] regs
);

    // ------------------------------------------------------------------------------------
    // Elaboration-time parameter checks
    // ------------------------------------------------------------------------------------
    if (NUM_OUTCOMES < 1 || NUM_OUTCOMES > 16) begin : g_check_outcomes
        $error("block_csr: NUM_OUTCOMES (%0d) must be 1..16", NUM_OUTCOMES);
    end
    if (NUM_REGS < 1 || NUM_REGS > 61) begin : g_check_regs
        $error("block_csr: NUM_REGS (%0d) must be 1..61 (extra registers end below 0x100)",
               NUM_REGS);
    end
    if (ADDR_W < 10 || ADDR_W > 32) begin : g_check_addr_w
        $error("block_csr: ADDR_W (%0d) must be 10..32 (the TX counters are at 0x200)", ADDR_W);
    end

    // ------------------------------------------------------------------------------------
    // Constants
    // ------------------------------------------------------------------------------------
    // Outcome counter n at 0x100 + 16*n; its RAM word n (SLOT_W-bit index, DEPTH words)
    localparam int SLOT_W = (NUM_OUTCOMES > 1) ? $clog2(NUM_OUTCOMES) : 1;
    localparam int DEPTH  = 2 ** SLOT_W;

    localparam int WA_W = ADDR_W - 2; // word address width

    // Word addresses
    localparam logic [WA_W-1:0] WA_ID      = WA_W'(0);
    localparam logic [WA_W-1:0] WA_PARAMS  = WA_W'(1);
    localparam logic [WA_W-1:0] WA_CONTROL = WA_W'(2);
    localparam logic [WA_W-1:0] WA_CLEAR   = WA_W'(3);

    // Word address of config register i
    function automatic logic [WA_W-1:0] reg_wa(input int i);
        reg_wa = (i == 0) ? WA_CONTROL : WA_W'(i + 3);
    endfunction

    // ------------------------------------------------------------------------------------
    // AXI4-Lite front end: a write is answered in the cycle its wr_req is raised (B in the
    // next cycle) and performed in the next from registered decode; a read is performed and
    // answered in the cycle after its rd_req (R in the cycle after that)
    // ------------------------------------------------------------------------------------
    logic            wr_req;
    logic [WA_W-1:0] wr_addr; // word address
    logic [31:0]     wr_data;
    logic [3:0]      wr_strb;
    logic            wr_ok;
    logic            rd_req;
    logic [WA_W-1:0] rd_addr; // word address
    logic            rd_ack;
    logic [31:0]     rd_data;
    logic            rd_ok;

    axil_reg_if #(
        .ADDR_W (ADDR_W)
    ) u_axil (
        .clk            (clk),
        .rst            (rst),
        .s_axil_awaddr  (s_axil_awaddr),
        .s_axil_awprot  (s_axil_awprot),
        .s_axil_awvalid (s_axil_awvalid),
        .s_axil_awready (s_axil_awready),
        .s_axil_wdata   (s_axil_wdata),
        .s_axil_wstrb   (s_axil_wstrb),
        .s_axil_wvalid  (s_axil_wvalid),
        .s_axil_wready  (s_axil_wready),
        .s_axil_bresp   (s_axil_bresp),
        .s_axil_bvalid  (s_axil_bvalid),
        .s_axil_bready  (s_axil_bready),
        .s_axil_araddr  (s_axil_araddr),
        .s_axil_arprot  (s_axil_arprot),
        .s_axil_arvalid (s_axil_arvalid),
        .s_axil_arready (s_axil_arready),
        .s_axil_rdata   (s_axil_rdata),
        .s_axil_rresp   (s_axil_rresp),
        .s_axil_rvalid  (s_axil_rvalid),
        .s_axil_rready  (s_axil_rready),
        .wr_ready       (1'b1),
        .wr_req         (wr_req),
        .wr_addr        (wr_addr),
        .wr_data        (wr_data),
        .wr_strb        (wr_strb),
        .wr_ack         (wr_req),
        .wr_err         (!wr_ok),
        .rd_req         (rd_req),
        .rd_addr        (rd_addr),
        .rd_ack         (rd_ack),
        .rd_data        (rd_data),
        .rd_err         (!rd_ok)
    );

    // Write decode
    logic [NUM_REGS-1:0] wr_reg; // one-hot: the config register addressed
    logic                wr_clear;

    for (genvar i = 0; i < NUM_REGS; i++) begin : g_wr_reg
        assign wr_reg[i] = wr_addr == reg_wa(i);
    end
    assign wr_clear = wr_addr == WA_CLEAR;
    assign wr_ok    = |wr_reg || wr_clear;

    logic counter_clear;  // the clearing write, in the cycle it is accepted (W)
    logic clear_q;        // W + 1: TX counters and HI latches cleared
    logic clear_qq;       // W + 2: outcome counters cleared
    assign counter_clear = wr_req && wr_clear && wr_strb[0] && wr_data[0];

    always_ff @(posedge clk) begin
        if (rst) begin
            clear_q  <= 1'b0;
            clear_qq <= 1'b0;
        end else begin
            clear_q  <= counter_clear;
            clear_qq <= clear_q;
        end
    end

    // ------------------------------------------------------------------------------------
    // Config registers
    // ------------------------------------------------------------------------------------
    // The write registered (W + 1): the register addressed, its byte lanes and data
    logic [NUM_REGS-1:0] wr_reg_q;
    logic [31:0]         wr_lanes_q, wr_data_q;
    always_ff @(posedge clk) begin
        for (int b = 0; b < 4; b++) begin
            wr_lanes_q[8*b +: 8] <= {8{wr_strb[b]}};
        end
        wr_data_q <= wr_data;
        wr_reg_q  <= wr_req ? wr_reg : '0;
        if (rst) wr_reg_q <= '0;
    end

    logic [NUM_REGS-1:0][31:0] reg_rd; // read view

    for (genvar i = 0; i < NUM_REGS; i++) begin : g_reg
        localparam logic [31:0] RESET = REG_RESET[32*i +: 32];
        localparam logic [31:0] WMASK = REG_WMASK[32*i +: 32];

        logic [31:0] q;
        logic [31:0] wen; // bits written this cycle
        assign wen = wr_reg_q[i] ? (wr_lanes_q & WMASK) : 32'd0;

        always_ff @(posedge clk) begin
            if (rst) begin
                q <= RESET;
            end else begin
                q <= (q & ~wen) | (wr_data_q & wen);
            end
        end

        assign reg_rd[i]        = q;
        assign regs[32*i +: 32] = q;
    end

    // ------------------------------------------------------------------------------------
    // Read decode: the address is registered in the rd_req cycle (R0) and decoded, the
    // registers and counter RAMs read in the next (R1) into registers, the word selected in
    // R2 (rd_ack), when the HI latch is loaded
    // ------------------------------------------------------------------------------------
    logic            rd_p_q;    // R1
    logic            rd_p2_q;   // R2
    logic [WA_W-1:0] rd_addr_q; // data: not reset

    always_ff @(posedge clk) begin
        if (rst) begin
            rd_p_q  <= 1'b0;
            rd_p2_q <= 1'b0;
        end else begin
            rd_p_q  <= rd_req;
            rd_p2_q <= rd_p_q;
        end
    end

    always_ff @(posedge clk) begin
        if (rd_req) rd_addr_q <= rd_addr;
    end

    assign rd_ack = rd_p2_q;

    logic [ADDR_W-5:0] rd_gran; // 16-byte granule: byte address [ADDR_W-1:4]
    logic              rd_cnt;  // an outcome counter: 0x100 + 16*n (n < NUM_OUTCOMES)
    logic              rd_tx;   // the TX counters: 0x200
    logic [3:0]        rd_slot; // outcome n of a counter address
    assign rd_gran = rd_addr_q[WA_W-1:2];
    assign rd_slot = rd_gran[3:0];
    assign rd_cnt  = rd_gran[ADDR_W-5:4] == (ADDR_W-8)'(1) && 32'(rd_slot) < 32'(NUM_OUTCOMES);
    assign rd_tx   = rd_gran == (ADDR_W-4)'(12'h020);

    // Latch strobes: a _LO read (R1)
    logic latch_pkts;
    logic latch_bytes;
    assign latch_pkts  = rd_p_q && rd_addr_q[1:0] == 2'd0;
    assign latch_bytes = rd_p_q && rd_addr_q[1:0] == 2'd2;

    // ------------------------------------------------------------------------------------
    // Events: registered twice (E1, E2); the counter is updated in E2
    // ------------------------------------------------------------------------------------
    logic              e1_valid_q;
    logic [SLOT_W-1:0] e1_slot_q;  // data
    logic [15:0]       e1_len_q;   // data
    logic              e2_valid_q;
    logic [SLOT_W-1:0] e2_slot_q;  // data
    logic [15:0]       e2_len_q;   // data
    logic              e3_valid_q;
    logic [SLOT_W-1:0] e3_slot_q;  // data
    logic [15:0]       e3_len_q;   // data
    logic [127:0]      e3_word_q;  // data: E3's counter as it stands (read, forwarded or zero)
    logic              t1_valid_q;
    logic [15:0]       t1_len_q;   // data
    logic              t2_valid_q;
    logic [15:0]       t2_len_q;   // data

    logic [DEPTH-1:0] cnt_zero_q;   // counter reads as zero (reset, COUNTER_CLEAR)

    always_ff @(posedge clk) begin
        if (rst) begin
            e1_valid_q <= 1'b0;
            e2_valid_q <= 1'b0;
            e3_valid_q <= 1'b0;
            t1_valid_q <= 1'b0;
            t2_valid_q <= 1'b0;
        end else begin
            e1_valid_q <= stat_valid && 32'(stat_outcome) < 32'(NUM_OUTCOMES);
            e2_valid_q <= e1_valid_q;
            e3_valid_q <= e2_valid_q;
            t1_valid_q <= tx_valid;
            t2_valid_q <= t1_valid_q;
        end
    end

    // ------------------------------------------------------------------------------------
    // Outcome counters: {packets, bytes} per outcome in LUT RAM, one update per cycle
    // ------------------------------------------------------------------------------------
    logic [63:0]  upd_pkts;     // the word E3 writes back
    logic [63:0]  upd_bytes;
    logic [127:0] rd_word;      // the read's counter as read (AXI copy)

    // The RAM: the same write into both copies, one asynchronous read port each
    logic [127:0] cnt_mem_a [DEPTH]; // read by the events (E2)
    logic [127:0] cnt_mem_b [DEPTH]; // read by AXI4-Lite

    // E2 reads its counter into e3_word_q; the E3 event writing the same counter in this cycle
    // is forwarded there (its sum, not the word read), and a counter that reads as zero in E3
    // loads zero: its flag as it will be in E3 (cleared by the E3 event on the same counter
    // now, set by the clear acted on now or in the next cycle). So E3 adds to one register and
    // the forward's select is one LUT after the adders' carry chains, not one before them.
    // The forward and E2's zero flag are registered in E1 (from E2's event and the flags as
    // they will be in E2), so e2_zero is one LUT of registers: the 16-way flag select and the
    // slot compare sit before a register, not before e3_word_q's reset.
    logic e2_fwd_q;    // E3's event in E2's cycle writes E2's counter
    logic e2_zflag_q;  // cnt_zero_q[e2_slot_q]
    logic e2_zero;
    assign e2_zero = clear_q || (!e2_fwd_q && (clear_qq || e2_zflag_q));

    always_ff @(posedge clk) begin
        e1_slot_q  <= stat_outcome[SLOT_W-1:0];
        e1_len_q   <= stat_len;
        e2_slot_q  <= e1_slot_q;
        e2_len_q   <= e1_len_q;
        e2_fwd_q   <= e2_valid_q && e2_slot_q == e1_slot_q;
        e2_zflag_q <= (e3_valid_q && e3_slot_q == e1_slot_q) ? 1'b0
                    : clear_qq ? 1'b1 : cnt_zero_q[e1_slot_q];
        e3_slot_q  <= e2_slot_q;
        e3_len_q   <= e2_len_q;
        e3_word_q  <= e2_zero ? 128'd0 : e2_fwd_q ? {upd_pkts, upd_bytes} : cnt_mem_a[e2_slot_q];
        t1_len_q   <= tx_len;
        t2_len_q   <= t1_len_q;
        if (rst) begin
            e2_fwd_q   <= 1'b0;
            e2_zflag_q <= 1'b1;
        end
    end

    // E3: read-modify-write, count + increment
    assign upd_pkts  = e3_word_q[127:64] + 64'd1;
    assign upd_bytes = e3_word_q[63:0] + {48'd0, e3_len_q};

    always_ff @(posedge clk) begin
        if (e3_valid_q) begin
            cnt_mem_a[e3_slot_q] <= {upd_pkts, upd_bytes};
            cnt_mem_b[e3_slot_q] <= {upd_pkts, upd_bytes};
        end
    end

    assign rd_word = cnt_mem_b[rd_slot[SLOT_W-1:0]];

    always_ff @(posedge clk) begin
        for (int k = 0; k < DEPTH; k++) begin
            if (rst) begin
                cnt_zero_q[k] <= 1'b1;
            end else if (e3_valid_q && e3_slot_q == SLOT_W'(k)) begin
                cnt_zero_q[k] <= 1'b0;
            end else if (clear_qq) begin
                cnt_zero_q[k] <= 1'b1;
            end
        end
    end

    // The counter a read addresses, as it is in R1
    logic        rd_zero;  // zero, or being cleared (the E3 events of this cycle count from 0)
    assign rd_zero  = cnt_zero_q[rd_slot[SLOT_W-1:0]] || clear_qq;

    // HI latches of the outcome counters: LUT RAM, a "reads as zero" flag each. A _LO read
    // samples bits 63:32 in R1 and writes the latch in R2, unless a clear was acted on in R1
    // (the latch it would have written then is zeroed by that clear).
    logic [31:0]       hi_pkts_mem [DEPTH];
    logic [31:0]       hi_bytes_mem [DEPTH];
    logic [DEPTH-1:0]  hi_pkts_zero_q;
    logic [DEPTH-1:0]  hi_bytes_zero_q;
    logic              ld_hi_pkts_q;   // R2
    logic              ld_hi_bytes_q;
    logic [SLOT_W-1:0] ld_slot_q;      // data
    logic [31:0]       ld_hi_q;        // data: the HI half sampled in R1
    logic              r2_lo_zero_q;   // data: ... and its counter's zero flag (R2's _LO too)

    always_ff @(posedge clk) begin
        if (rst) begin
            ld_hi_pkts_q  <= 1'b0;
            ld_hi_bytes_q <= 1'b0;
        end else begin
            ld_hi_pkts_q  <= latch_pkts && rd_cnt && !clear_q;
            ld_hi_bytes_q <= latch_bytes && rd_cnt && !clear_q;
        end
        ld_slot_q <= rd_slot[SLOT_W-1:0];
        ld_hi_q   <= rd_addr_q[1] ? rd_word[63:32] : rd_word[127:96];
    end

    always_ff @(posedge clk) begin
        if (ld_hi_pkts_q)  hi_pkts_mem[ld_slot_q]  <= r2_lo_zero_q ? 32'd0 : ld_hi_q;
        if (ld_hi_bytes_q) hi_bytes_mem[ld_slot_q] <= r2_lo_zero_q ? 32'd0 : ld_hi_q;
    end

    always_ff @(posedge clk) begin
        for (int k = 0; k < DEPTH; k++) begin
            if (rst || clear_q) begin
                hi_pkts_zero_q[k]  <= 1'b1;
                hi_bytes_zero_q[k] <= 1'b1;
            end else begin
                if (ld_hi_pkts_q && ld_slot_q == SLOT_W'(k))  hi_pkts_zero_q[k]  <= 1'b0;
                if (ld_hi_bytes_q && ld_slot_q == SLOT_W'(k)) hi_bytes_zero_q[k] <= 1'b0;
            end
        end
    end


    // ------------------------------------------------------------------------------------
    // TX counters: flip-flops, each a 32-bit low half and an upper half that takes the low
    // half's carry a cycle later (c_q), so that no 64-bit carry chain follows a register.
    // The value is {up + c, lo}: _LO reads lo, the latch of _HI adds the pending carry.
    // The addends are registered already masked by the event (t3_*_add_q), so t3 drives no
    // enable.
    // ------------------------------------------------------------------------------------
    logic [31:0] tx_pkts_lo_q, tx_pkts_up_q;
    logic [31:0] tx_bytes_lo_q, tx_bytes_up_q;
    logic        tx_pkts_c_q, tx_bytes_c_q;    // the low half's carry, not yet in the high
    logic        t3_pkts_add_q;                // 1 with a TX event in T3
    logic [15:0] t3_bytes_add_q;               // its length, 0 without one
    logic [31:0] rd_tx_pkts_lo;   // as a read sees them (zero while being cleared)
    logic [31:0] rd_tx_bytes_lo;
    assign rd_tx_pkts_lo  = clear_qq ? 32'd0 : tx_pkts_lo_q;
    assign rd_tx_bytes_lo = clear_qq ? 32'd0 : tx_bytes_lo_q;
    logic [31:0] tx_pkts_hi_q;
    logic [31:0] tx_bytes_hi_q;

    always_ff @(posedge clk) begin
        t3_pkts_add_q  <= t2_valid_q;
        t3_bytes_add_q <= t2_valid_q ? t2_len_q : 16'd0;
        if (rst) begin
            t3_pkts_add_q  <= 1'b0;
            t3_bytes_add_q <= '0;
        end
    end

    always_ff @(posedge clk) begin
        if (rst || clear_qq) begin
            // a clear counts this cycle's event from zero
            {tx_pkts_c_q, tx_pkts_lo_q}   <= {32'd0, t3_pkts_add_q};
            {tx_bytes_c_q, tx_bytes_lo_q} <= {17'd0, t3_bytes_add_q};
            tx_pkts_up_q  <= '0;
            tx_bytes_up_q <= '0;
        end else begin
            {tx_pkts_c_q, tx_pkts_lo_q}   <= {1'b0, tx_pkts_lo_q} + 33'(t3_pkts_add_q);
            {tx_bytes_c_q, tx_bytes_lo_q} <= {1'b0, tx_bytes_lo_q} + 33'(t3_bytes_add_q);
            tx_pkts_up_q  <= tx_pkts_up_q + 32'(tx_pkts_c_q);
            tx_bytes_up_q <= tx_bytes_up_q + 32'(tx_bytes_c_q);
        end
        if (rst) begin
            {tx_pkts_c_q, tx_pkts_lo_q}   <= '0;
            {tx_bytes_c_q, tx_bytes_lo_q} <= '0;
        end
    end

    // Loaded in R2 from R1's sample, as the outcome counters' latches
    logic        ld_tx_pkts_q;   // R2
    logic        ld_tx_bytes_q;
    logic [31:0] ld_tx_hi_q;     // data

    always_ff @(posedge clk) begin
        if (rst) begin
            ld_tx_pkts_q  <= 1'b0;
            ld_tx_bytes_q <= 1'b0;
        end else begin
            ld_tx_pkts_q  <= latch_pkts && rd_tx && !clear_q;
            ld_tx_bytes_q <= latch_bytes && rd_tx && !clear_q;
        end
        ld_tx_hi_q <= clear_qq     ? 32'd0
                    : rd_addr_q[1] ? tx_bytes_up_q + 32'(tx_bytes_c_q) : tx_pkts_up_q + 32'(tx_pkts_c_q);
    end

    always_ff @(posedge clk) begin
        if (rst || clear_q) begin
            tx_pkts_hi_q  <= '0;
            tx_bytes_hi_q <= '0;
        end else begin
            if (ld_tx_pkts_q)  tx_pkts_hi_q  <= ld_tx_hi_q;
            if (ld_tx_bytes_q) tx_bytes_hi_q <= ld_tx_hi_q;
        end
    end

    // ------------------------------------------------------------------------------------
    // Read data: R1 registers the RAM words (unselected by their zero flags) and everything
    // else already selected; R2 applies the flags and picks one (rd_ack)
    // ------------------------------------------------------------------------------------
    logic        r2_cnt_q;      // R2: an outcome counter
    logic        r2_hi_q;       // ... its _HI register (else _LO)
    logic [31:0] r2_lo_q;       // data: the _LO word as read
    logic [31:0] r2_hi_q2;      // data: the HI latch as read
    logic        r2_hi_zero_q;  // data
    logic [31:0] r2_other_q;    // data: any other register, selected in R1
    logic        r2_ok_q;       // data
    logic [31:0] rd_other;
    logic        rd_ok1;

    always_ff @(posedge clk) begin
        r2_cnt_q     <= rd_cnt;
        r2_hi_q      <= rd_addr_q[0];
        r2_lo_q      <= rd_addr_q[1] ? rd_word[31:0] : rd_word[95:64];
        r2_lo_zero_q <= rd_zero;
        r2_hi_q2     <= rd_addr_q[1] ? hi_bytes_mem[rd_slot[SLOT_W-1:0]]
                                     : hi_pkts_mem[rd_slot[SLOT_W-1:0]];
        r2_hi_zero_q <= rd_addr_q[1] ? hi_bytes_zero_q[rd_slot[SLOT_W-1:0]]
                                     : hi_pkts_zero_q[rd_slot[SLOT_W-1:0]];
        r2_other_q   <= rd_other;
        r2_ok_q      <= rd_ok1;
    end

    always_comb begin
        if (!r2_cnt_q)         rd_data = r2_other_q;
        else if (r2_hi_q)      rd_data = r2_hi_zero_q ? 32'd0 : r2_hi_q2;
        else                   rd_data = r2_lo_zero_q ? 32'd0 : r2_lo_q;
    end
    assign rd_ok = r2_ok_q;

    always_comb begin
        rd_other = 32'd0;
        rd_ok1   = 1'b1;
        if (rd_addr_q == WA_ID) begin
            rd_other = ID_VALUE;
        end else if (rd_addr_q == WA_PARAMS) begin
            rd_other = PARAMS_VALUE;
        end else if (rd_addr_q == WA_CLEAR) begin
            rd_other = 32'd0;
        end else if (rd_cnt) begin
            rd_other = 32'd0;   // R2 selects the counter
        end else if (rd_tx) begin
            unique case (rd_addr_q[1:0])
                2'd0:    rd_other = rd_tx_pkts_lo;
                2'd1:    rd_other = tx_pkts_hi_q;
                2'd2:    rd_other = rd_tx_bytes_lo;
                default: rd_other = tx_bytes_hi_q;
            endcase
        end else begin
            rd_ok1 = 1'b0;
            for (int i = 0; i < NUM_REGS; i++) begin
                if (rd_addr_q == reg_wa(i)) begin
                    rd_other = reg_rd[i];
                    rd_ok1   = 1'b1;
                end
            end
        end
    end

endmodule

`default_nettype wire
