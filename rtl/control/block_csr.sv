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
//   * Write: AW and W are accepted in either order or together; the register is written in
//     the cycle both are present, and B is raised in the next cycle.
//   * Read: AR is accepted when no R is pending; R follows in the next cycle.
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
//   * stat_valid/stat_outcome/stat_len and tx_valid/tx_len are registered once before the
//     counters, so a counter shows an event two cycles after it is presented. Outcome codes
//     >= NUM_OUTCOMES are not counted.
//   * COUNTER_CLEAR never loses an event: the counter's next value is (clear ? 0 : count) +
//     increment, so an event that reaches the counter in the same cycle as the clear is
//     counted after the clear. (With the input register, events presented up to the cycle
//     in which the clearing write is accepted may thus be counted after the clear.)
//   * HI latch: each counter has its own 32-bit latch. Reading a _LO register returns bits
//     31:0 and, in the same cycle, copies bits 63:32 of that same counter into its latch;
//     reading _HI returns the latch. Latches are zeroed by reset and by COUNTER_CLEAR.

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
    // Counter slots: slot k at 0x100 + 16*k. Slots 0..NUM_OUTCOMES-1 are the outcomes,
    // slot 16 (0x200) is TX. The read arrays are padded to 32 slots (5-bit index).
    localparam int NUM_SLOTS = 32;
    localparam int TX_SLOT   = 16;

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
    // AXI4-Lite front end: a write is performed in the cycle its wr_req is raised and
    // answered at once (B in the next cycle); a read is answered in its rd_req cycle
    // ------------------------------------------------------------------------------------
    logic            wr_req;
    logic [WA_W-1:0] wr_addr; // word address
    logic [31:0]     wr_data;
    logic [3:0]      wr_strb;
    logic            wr_ok;
    logic            rd_req;
    logic [WA_W-1:0] rd_addr; // word address
    logic [31:0]     rd_data;
    logic            rd_ok;

    // clk, rst, s_axil_* and the wr_*/rd_* request signals connect by name (.*)
    axil_reg_if #(
        .ADDR_W (ADDR_W)
    ) u_axil (
        .*,
        .wr_ready (1'b1),
        .wr_ack   (wr_req),
        .wr_err   (!wr_ok),
        .rd_ack   (rd_req),
        .rd_err   (!rd_ok)
    );

    // Write decode
    logic [NUM_REGS-1:0] wr_reg; // one-hot: the config register addressed
    logic                wr_clear;

    for (genvar i = 0; i < NUM_REGS; i++) begin : g_wr_reg
        assign wr_reg[i] = wr_addr == reg_wa(i);
    end
    assign wr_clear = wr_addr == WA_CLEAR;
    assign wr_ok    = |wr_reg || wr_clear;

    logic counter_clear;
    assign counter_clear = wr_req && wr_clear && wr_strb[0] && wr_data[0];

    // ------------------------------------------------------------------------------------
    // Config registers
    // ------------------------------------------------------------------------------------
    // Bits written by the current write: byte lanes of WSTRB, restricted to the writable bits
    logic [31:0] wr_lanes;
    always_comb begin
        for (int b = 0; b < 4; b++) begin
            wr_lanes[8*b +: 8] = {8{wr_strb[b]}};
        end
    end

    logic [NUM_REGS-1:0][31:0] reg_rd; // read view

    for (genvar i = 0; i < NUM_REGS; i++) begin : g_reg
        localparam logic [31:0] RESET = REG_RESET[32*i +: 32];
        localparam logic [31:0] WMASK = REG_WMASK[32*i +: 32];

        logic [31:0] q;
        logic [31:0] wen; // bits written this cycle
        assign wen = (wr_req && wr_reg[i]) ? (wr_lanes & WMASK) : 32'd0;

        always_ff @(posedge clk) begin
            if (rst) begin
                q <= RESET;
            end else begin
                q <= (q & ~wen) | (wr_data & wen);
            end
        end

        assign reg_rd[i]        = q;
        assign regs[32*i +: 32] = q;
    end

    // ------------------------------------------------------------------------------------
    // Read decode
    // ------------------------------------------------------------------------------------
    logic [ADDR_W-5:0] rd_gran; // 16-byte granule: byte address [ADDR_W-1:4]
    logic [4:0]        rd_slot; // counter slot of a counter address
    logic              rd_cnt;  // an implemented counter: 0x100 + 16*n (n < NUM_OUTCOMES), 0x200
    assign rd_gran = rd_addr[WA_W-1:2];
    assign rd_slot = rd_gran[4] ? {1'b0, rd_gran[3:0]} : 5'(TX_SLOT);
    assign rd_cnt  = (rd_gran[ADDR_W-5:4] == (ADDR_W-8)'(1) && 32'(rd_gran[3:0]) < 32'(NUM_OUTCOMES))
                  || rd_gran == (ADDR_W-4)'(12'h020);

    // Latch strobes: a _LO read of slot rd_slot
    logic latch_pkts;
    logic latch_bytes;
    assign latch_pkts  = rd_req && rd_cnt && rd_addr[1:0] == 2'd0;
    assign latch_bytes = rd_req && rd_cnt && rd_addr[1:0] == 2'd2;

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
    // Read data mux
    // ------------------------------------------------------------------------------------
    always_comb begin
        rd_data = 32'd0;
        rd_ok   = 1'b1;
        if (rd_addr == WA_ID) begin
            rd_data = ID_VALUE;
        end else if (rd_addr == WA_PARAMS) begin
            rd_data = PARAMS_VALUE;
        end else if (rd_addr == WA_CLEAR) begin
            rd_data = 32'd0;
        end else if (rd_cnt) begin
            unique case (rd_addr[1:0])
                2'd0: rd_data = pkts_rd[rd_slot][31:0];
                2'd1: rd_data = pkts_hi_rd[rd_slot];
                2'd2: rd_data = bytes_rd[rd_slot][31:0];
                2'd3: rd_data = bytes_hi_rd[rd_slot];
                default: rd_data = 32'd0;
            endcase
        end else begin
            rd_ok = 1'b0;
            for (int i = 0; i < NUM_REGS; i++) begin
                if (rd_addr == reg_wa(i)) begin
                    rd_data = reg_rd[i];
                    rd_ok   = 1'b1;
                end
            end
        end
    end

endmodule

`default_nettype wire
