// SPDX-License-Identifier: Apache-2.0
//
// gre_csr: AXI4-Lite control/status registers of the GRE decapsulation block.
//
// Implements the "Register map" of docs/gre_decap.md: ID, PARAMS, CONTROL, COUNTER_CLEAR, the
// 64-bit per-outcome packet/byte counters, the TX counters and the IPv4 allow-list, plus the
// combinational allow-list lookup used by the datapath.
//
// AXI4-Lite behaviour
//   * 16-bit byte address, 32-bit data. Address bits [1:0] are ignored (word access only).
//   * One write and one read may be in flight at the same time (the two channels are
//     independent); each channel accepts its next request after its response was taken.
//   * Write: AW and W are accepted in either order or together; the register is written in
//     the cycle both are present, and B is raised in the next cycle.
//   * Read: AR is accepted when no R is pending; R follows in the next cycle.
//   * WSTRB selects byte lanes of RW registers; a write with WSTRB = 0 changes nothing (and
//     still answers OKAY on a writable address).
//   * Unmapped addresses (reads and writes) and writes to read-only registers answer SLVERR
//     (2'b10) with read data 0. COUNTER_CLEAR is write-only: reading it returns 0, OKAY.
//   * AWPROT/ARPROT are ignored.
//
// Counters
//   * stat_valid/stat_outcome/stat_len and tx_valid/tx_len are registered once before the
//     counters, so a counter shows an event two cycles after it is presented.
//   * COUNTER_CLEAR never loses an event: the counter's next value is (clear ? 0 : count) +
//     increment, so an event that reaches the counter in the same cycle as the clear is
//     counted after the clear. (With the input register, events presented up to the cycle
//     in which the clearing write is accepted may thus be counted after the clear.)
//   * HI latch: each counter has its own 32-bit latch. Reading a _LO register returns bits
//     31:0 and, in the same cycle, copies bits 63:32 of that same counter into its latch;
//     reading _HI returns the latch. Latches are zeroed by reset and by COUNTER_CLEAR.
//
// Allow-list
//   * ALLOW_ENTRIES entries of {src, dst, valid} in flip-flops. Only VALID is reset (to 0).
//   * lookup_hit is combinational: some valid entry i has src == lookup_src and
//     dst == lookup_dst (parallel compare).

`default_nettype none

module gre_csr #(
    // Datapath width in bits; only reported in PARAMS[15:0]
    parameter int DATA_W = 256,
    // Number of allow-list entries (1..256)
    parameter int ALLOW_ENTRIES = 64,
    // Number of outcome counters (1..16); the outcome codes of docs/gre_decap.md use 14
    parameter int NUM_OUTCOMES = 14
) (
    input  wire logic        clk,
    input  wire logic        rst,

    // AXI4-Lite slave
    input  wire logic [15:0] s_axil_awaddr,
    input  wire logic [2:0]  s_axil_awprot,
    input  wire logic        s_axil_awvalid,
    output      logic        s_axil_awready,
    input  wire logic [31:0] s_axil_wdata,
    input  wire logic [3:0]  s_axil_wstrb,
    input  wire logic        s_axil_wvalid,
    output      logic        s_axil_wready,
    output      logic [1:0]  s_axil_bresp,
    output      logic        s_axil_bvalid,
    input  wire logic        s_axil_bready,
    input  wire logic [15:0] s_axil_araddr,
    input  wire logic [2:0]  s_axil_arprot,
    input  wire logic        s_axil_arvalid,
    output      logic        s_axil_arready,
    output      logic [31:0] s_axil_rdata,
    output      logic [1:0]  s_axil_rresp,
    output      logic        s_axil_rvalid,
    input  wire logic        s_axil_rready,

    // Per-input-frame outcome events (one per frame)
    input  wire logic        stat_valid,
    input  wire logic [3:0]  stat_outcome,
    input  wire logic [15:0] stat_len,

    // Per-transmitted-frame events (one per whole output frame)
    input  wire logic        tx_valid,
    input  wire logic [15:0] tx_len,

    // CONTROL register fields
    output      logic        ctrl_allow_enable,
    output      logic        ctrl_drop_pass,
    output      logic        ctrl_drop_punt,
    output      logic        ctrl_forward_malformed,

    // Allow-list lookup (combinational)
    input  wire logic [31:0] lookup_src,
    input  wire logic [31:0] lookup_dst,
    output      logic        lookup_hit
);

    // ------------------------------------------------------------------------------------
    // Elaboration-time parameter checks
    // ------------------------------------------------------------------------------------
    if (DATA_W < 1 || DATA_W > 65535) begin : g_err_data_w
        $error("gre_csr: DATA_W (%0d) must fit PARAMS[15:0]", DATA_W);
    end
    if (ALLOW_ENTRIES < 1 || ALLOW_ENTRIES > 256) begin : g_err_allow
        $error("gre_csr: ALLOW_ENTRIES (%0d) must be 1..256", ALLOW_ENTRIES);
    end
    if (NUM_OUTCOMES < 1 || NUM_OUTCOMES > 16) begin : g_err_outcomes
        $error("gre_csr: NUM_OUTCOMES (%0d) must be 1..16", NUM_OUTCOMES);
    end

    // ------------------------------------------------------------------------------------
    // Constants
    // ------------------------------------------------------------------------------------
    localparam logic [31:0] ID_VALUE     = 32'h5753_4731; // "WSG1"
    localparam logic [31:0] PARAMS_VALUE = {16'(ALLOW_ENTRIES), 16'(DATA_W)};
    localparam logic [1:0]  RESP_OKAY    = 2'b00;
    localparam logic [1:0]  RESP_SLVERR  = 2'b10;

    // Counter slots: slot k at 0x0100 + 16*k. Slots 0..NUM_OUTCOMES-1 are the outcomes,
    // slot 16 (0x0200) is TX. The read arrays are padded to 32 slots (5-bit index).
    localparam int NUM_SLOTS = 32;
    localparam int TX_SLOT   = 16;

    // Allow-list index width and padded read-array size
    localparam int AIDX_W   = (ALLOW_ENTRIES > 1) ? $clog2(ALLOW_ENTRIES) : 1;
    localparam int AENT_PAD = 2 ** AIDX_W;

    // Word addresses (byte address [15:2])
    localparam logic [13:0] WA_ID      = 14'h0000;
    localparam logic [13:0] WA_PARAMS  = 14'h0001;
    localparam logic [13:0] WA_CONTROL = 14'h0002;
    localparam logic [13:0] WA_CLEAR   = 14'h0003;

    // ------------------------------------------------------------------------------------
    // Unused inputs (lint waiver by name)
    // ------------------------------------------------------------------------------------
    logic unused_axil;
    assign unused_axil = ^{s_axil_awprot, s_axil_arprot, s_axil_awaddr[1:0], s_axil_araddr[1:0]};

    // ------------------------------------------------------------------------------------
    // Address decode helpers
    // ------------------------------------------------------------------------------------
    // Counter slot of a byte address, and whether it names an implemented counter.
    // (argument: byte address bits [15:4])
    function automatic logic is_cnt_addr(input logic [15:4] a);
        is_cnt_addr = (a[15:8] == 8'h01 && 32'(a[7:4]) < 32'(NUM_OUTCOMES)) || a[15:4] == 12'h020;
    endfunction

    function automatic logic [4:0] cnt_slot(input logic [15:4] a);
        cnt_slot = (a[15:8] == 8'h01) ? {1'b0, a[7:4]} : 5'(TX_SLOT);
    endfunction

    // Allow-list: 0x1000 + 16*i + {0, 4, 8} (argument: byte address bits [15:2])
    function automatic logic is_allow_addr(input logic [15:2] a);
        is_allow_addr = a[15:12] == 4'h1 && 32'(a[11:4]) < 32'(ALLOW_ENTRIES) && a[3:2] != 2'd3;
    endfunction

    // ------------------------------------------------------------------------------------
    // Write channel
    // ------------------------------------------------------------------------------------
    logic        aw_full_q;   // AW accepted, waiting for W
    logic        w_full_q;    // W accepted, waiting for AW
    logic        bvalid_q;
    logic [1:0]  bresp_q;
    logic [15:2] aw_addr_q;
    logic [31:0] w_data_q;
    logic [3:0]  w_strb_q;

    logic aw_hs;
    logic w_hs;
    logic have_aw;
    logic have_w;
    logic do_write;

    logic [15:2] wr_addr; // word address
    logic [31:0] wr_data;
    logic [3:0]  wr_strb;

    assign s_axil_awready = !aw_full_q && !bvalid_q;
    assign s_axil_wready  = !w_full_q && !bvalid_q;
    assign s_axil_bvalid  = bvalid_q;
    assign s_axil_bresp   = bresp_q;

    assign aw_hs    = s_axil_awvalid && s_axil_awready;
    assign w_hs     = s_axil_wvalid && s_axil_wready;
    assign have_aw  = aw_full_q || aw_hs;
    assign have_w   = w_full_q || w_hs;
    assign do_write = have_aw && have_w; // implies !bvalid_q

    assign wr_addr = aw_full_q ? aw_addr_q : s_axil_awaddr[15:2];
    assign wr_data = w_full_q ? w_data_q : s_axil_wdata;
    assign wr_strb = w_full_q ? w_strb_q : s_axil_wstrb;

    // Write decode
    logic wr_control;
    logic wr_clear;
    logic wr_allow;
    logic wr_ok;

    assign wr_control = wr_addr == WA_CONTROL;
    assign wr_clear   = wr_addr == WA_CLEAR;
    assign wr_allow   = is_allow_addr(wr_addr);
    assign wr_ok      = wr_control || wr_clear || wr_allow;

    logic counter_clear;
    assign counter_clear = do_write && wr_clear && wr_strb[0] && wr_data[0];

    always_ff @(posedge clk) begin
        if (rst) begin
            aw_full_q <= 1'b0;
            w_full_q  <= 1'b0;
            bvalid_q  <= 1'b0;
        end else begin
            if (do_write) begin
                aw_full_q <= 1'b0;
                w_full_q  <= 1'b0;
                bvalid_q  <= 1'b1;
            end else begin
                if (aw_hs) aw_full_q <= 1'b1;
                if (w_hs)  w_full_q  <= 1'b1;
                if (s_axil_bready) bvalid_q <= 1'b0;
            end
        end
    end

    always_ff @(posedge clk) begin
        if (aw_hs) aw_addr_q <= s_axil_awaddr[15:2];
        if (w_hs) begin
            w_data_q <= s_axil_wdata;
            w_strb_q <= s_axil_wstrb;
        end
        if (do_write) bresp_q <= wr_ok ? RESP_OKAY : RESP_SLVERR;
    end

    // ------------------------------------------------------------------------------------
    // CONTROL
    // ------------------------------------------------------------------------------------
    logic [3:0] control_q;

    always_ff @(posedge clk) begin
        if (rst) begin
            control_q <= '0;
        end else if (do_write && wr_control && wr_strb[0]) begin
            control_q <= wr_data[3:0];
        end
    end

    assign ctrl_allow_enable      = control_q[0];
    assign ctrl_drop_pass         = control_q[1];
    assign ctrl_drop_punt         = control_q[2];
    assign ctrl_forward_malformed = control_q[3];

    // ------------------------------------------------------------------------------------
    // Read channel: address handshake, decode
    // ------------------------------------------------------------------------------------
    logic        rvalid_q;
    logic [31:0] rdata_q;
    logic [1:0]  rresp_q;
    logic        ar_hs;

    assign s_axil_arready = !rvalid_q;
    assign s_axil_rvalid  = rvalid_q;
    assign s_axil_rdata   = rdata_q;
    assign s_axil_rresp   = rresp_q;
    assign ar_hs          = s_axil_arvalid && s_axil_arready;

    logic [15:2] rd_addr; // word address
    logic [4:0]  rd_slot;
    logic        rd_cnt;
    assign rd_addr = s_axil_araddr[15:2];
    assign rd_slot = cnt_slot(rd_addr[15:4]);
    assign rd_cnt  = is_cnt_addr(rd_addr[15:4]);

    // Latch strobes: a _LO read of slot k
    logic latch_pkts;
    logic latch_bytes;
    assign latch_pkts  = ar_hs && rd_cnt && rd_addr[3:2] == 2'd0;
    assign latch_bytes = ar_hs && rd_cnt && rd_addr[3:2] == 2'd2;

    // ------------------------------------------------------------------------------------
    // Counters
    // ------------------------------------------------------------------------------------
    // Registered events
    logic        stat_valid_q;
    logic [3:0]  stat_outcome_q;
    logic [15:0] stat_len_q;
    logic        tx_valid_q;
    logic [15:0] tx_len_q;

    always_ff @(posedge clk) begin
        if (rst) begin
            stat_valid_q <= 1'b0;
            tx_valid_q   <= 1'b0;
        end else begin
            stat_valid_q <= stat_valid;
            tx_valid_q   <= tx_valid;
        end
    end

    always_ff @(posedge clk) begin
        stat_outcome_q <= stat_outcome;
        stat_len_q     <= stat_len;
        tx_len_q       <= tx_len;
    end

    // Read views of the counters and HI latches, padded to NUM_SLOTS
    logic [NUM_SLOTS-1:0][63:0] pkts_rd;
    logic [NUM_SLOTS-1:0][63:0] bytes_rd;
    logic [NUM_SLOTS-1:0][31:0] pkts_hi_rd;
    logic [NUM_SLOTS-1:0][31:0] bytes_hi_rd;

    for (genvar k = 0; k < NUM_SLOTS; k++) begin : g_cnt
        if (k < NUM_OUTCOMES || k == TX_SLOT) begin : g_impl
            logic        inc;
            logic [15:0] len;
            logic [63:0] pkts_q;
            logic [63:0] bytes_q;
            logic [31:0] pkts_hi_q;
            logic [31:0] bytes_hi_q;

            if (k == TX_SLOT) begin : g_tx
                assign inc = tx_valid_q;
                assign len = tx_len_q;
            end else begin : g_outcome
                assign inc = stat_valid_q && stat_outcome_q == 4'(k);
                assign len = stat_len_q;
            end

            always_ff @(posedge clk) begin
                if (rst) begin
                    pkts_q  <= '0;
                    bytes_q <= '0;
                end else if (counter_clear || inc) begin
                    pkts_q  <= (counter_clear ? 64'd0 : pkts_q) + {63'd0, inc};
                    bytes_q <= (counter_clear ? 64'd0 : bytes_q) + (inc ? {48'd0, len} : 64'd0);
                end
            end

            always_ff @(posedge clk) begin
                if (rst || counter_clear) begin
                    pkts_hi_q  <= '0;
                    bytes_hi_q <= '0;
                end else begin
                    if (latch_pkts && rd_slot == 5'(k))  pkts_hi_q  <= pkts_q[63:32];
                    if (latch_bytes && rd_slot == 5'(k)) bytes_hi_q <= bytes_q[63:32];
                end
            end

            assign pkts_rd[k]     = pkts_q;
            assign bytes_rd[k]    = bytes_q;
            assign pkts_hi_rd[k]  = pkts_hi_q;
            assign bytes_hi_rd[k] = bytes_hi_q;
        end else begin : g_none
            assign pkts_rd[k]     = '0;
            assign bytes_rd[k]    = '0;
            assign pkts_hi_rd[k]  = '0;
            assign bytes_hi_rd[k] = '0;
        end
    end

    // ------------------------------------------------------------------------------------
    // Allow-list
    // ------------------------------------------------------------------------------------
    logic [AIDX_W-1:0]        wr_aidx;
    logic [AIDX_W-1:0]        rd_aidx;
    logic [ALLOW_ENTRIES-1:0] entry_hit;
    logic [AENT_PAD-1:0][31:0] allow_src_rd;
    logic [AENT_PAD-1:0][31:0] allow_dst_rd;
    logic [AENT_PAD-1:0]       allow_valid_rd;

    assign wr_aidx = wr_addr[4 +: AIDX_W];
    assign rd_aidx = rd_addr[4 +: AIDX_W];

    // Byte-lane merge of a write into a 32-bit register
    function automatic logic [31:0] apply_strb(input logic [31:0] old, input logic [31:0] data,
                                               input logic [3:0] strb);
        logic [31:0] r;
        for (int b = 0; b < 4; b++) begin
            r[8*b +: 8] = strb[b] ? data[8*b +: 8] : old[8*b +: 8];
        end
        apply_strb = r;
    endfunction

    for (genvar i = 0; i < AENT_PAD; i++) begin : g_allow
        if (i < ALLOW_ENTRIES) begin : g_impl
            logic [31:0] src_q;   // data: not reset
            logic [31:0] dst_q;   // data: not reset
            logic        valid_q; // control: reset to 0
            logic        sel;

            assign sel = do_write && wr_allow && wr_aidx == AIDX_W'(i);

            always_ff @(posedge clk) begin
                if (sel && wr_addr[3:2] == 2'd0) src_q <= apply_strb(src_q, wr_data, wr_strb);
                if (sel && wr_addr[3:2] == 2'd1) dst_q <= apply_strb(dst_q, wr_data, wr_strb);
            end

            always_ff @(posedge clk) begin
                if (rst) begin
                    valid_q <= 1'b0;
                end else if (sel && wr_addr[3:2] == 2'd2 && wr_strb[0]) begin
                    valid_q <= wr_data[0];
                end
            end

            assign entry_hit[i]      = valid_q && src_q == lookup_src && dst_q == lookup_dst;
            assign allow_src_rd[i]   = src_q;
            assign allow_dst_rd[i]   = dst_q;
            assign allow_valid_rd[i] = valid_q;
        end else begin : g_none
            assign allow_src_rd[i]   = '0;
            assign allow_dst_rd[i]   = '0;
            assign allow_valid_rd[i] = 1'b0;
        end
    end

    assign lookup_hit = |entry_hit;

    // ------------------------------------------------------------------------------------
    // Read data mux and R channel
    // ------------------------------------------------------------------------------------
    logic [31:0] rd_data;
    logic        rd_ok;

    always_comb begin
        rd_data = 32'd0;
        rd_ok   = 1'b1;
        if (rd_addr == WA_ID) begin
            rd_data = ID_VALUE;
        end else if (rd_addr == WA_PARAMS) begin
            rd_data = PARAMS_VALUE;
        end else if (rd_addr == WA_CONTROL) begin
            rd_data = {28'd0, control_q};
        end else if (rd_addr == WA_CLEAR) begin
            rd_data = 32'd0;
        end else if (rd_cnt) begin
            unique case (rd_addr[3:2])
                2'd0: rd_data = pkts_rd[rd_slot][31:0];
                2'd1: rd_data = pkts_hi_rd[rd_slot];
                2'd2: rd_data = bytes_rd[rd_slot][31:0];
                2'd3: rd_data = bytes_hi_rd[rd_slot];
                default: rd_data = 32'd0;
            endcase
        end else if (is_allow_addr(rd_addr)) begin
            unique case (rd_addr[3:2])
                2'd0: rd_data = allow_src_rd[rd_aidx];
                2'd1: rd_data = allow_dst_rd[rd_aidx];
                default: rd_data = {31'd0, allow_valid_rd[rd_aidx]};
            endcase
        end else begin
            rd_ok = 1'b0;
        end
    end

    always_ff @(posedge clk) begin
        if (rst) begin
            rvalid_q <= 1'b0;
        end else if (ar_hs) begin
            rvalid_q <= 1'b1;
        end else if (s_axil_rready) begin
            rvalid_q <= 1'b0;
        end
    end

    always_ff @(posedge clk) begin
        if (ar_hs) begin
            rdata_q <= rd_data;
            rresp_q <= rd_ok ? RESP_OKAY : RESP_SLVERR;
        end
    end

endmodule

`default_nettype wire
