// SPDX-License-Identifier: Apache-2.0
//
// allow_list: a list of {source, destination} IPv4 address pairs, programmed over AXI4-Lite
// and looked up by the datapath, one lookup per cycle (docs/gre_decap.md, 0x1000 window).
//
// Register map (byte addresses relative to the window)
//   16*i + 0x0   SRC[i]     RW   entry i source address
//   16*i + 0x4   DST[i]     RW   entry i destination address
//   16*i + 0x8   VALID[i]   RW   bit 0: entry i valid (bits 31:1 read 0)
//   16*i + 0xC   -               unmapped
//
// AXI4-Lite behaviour (the slave front end is axil_reg_if)
//   * ADDR_W-bit byte address, 32-bit data. Address bits [1:0] are ignored (word access only);
//     all other address bits are decoded (an entry index >= ENTRIES is unmapped).
//   * One write and one read may be in flight at the same time (the two channels are
//     independent); each channel accepts its next request after its response was taken.
//   * Requests reach the block from registers (axil_reg_if REQ_REG): a write's request is
//     raised the cycle after both AW and W are present (c0 below), a read's the cycle after
//     the AR handshake (R0), so no AXI handshake logic is in series with the block's (but
//     for the key shadow's read address register, loaded in the AR handshake's cycle).
//   * Write: AW and W are accepted in either order or together. A VALID write (and any
//     SLVERR write) is performed in the cycle after c0 and B is raised in the cycle after
//     that. A SRC/DST write runs the sequence below: B is raised KEY_B =
//     13 + 2*NCHUNK*(ENTRIES + 3) cycles after the cycle both are present (951 with the
//     defaults), one cycle later for each read request raised while the sequence runs (it
//     holds in that cycle). A write waits one cycle when a read request is raised in its c0.
//   * Read: AR is accepted when no R is pending; R follows 4 cycles after the AR handshake.
//   * WSTRB selects byte lanes (VALID: lane 0); a write with WSTRB = 0 changes nothing (and
//     still answers OKAY).
//   * Unmapped addresses (reads and writes) answer SLVERR (2'b10) with read data 0.
//     AWPROT/ARPROT are ignored.
//
// Storage: a bit-sliced CAM in block RAM
//   * The key {src, dst} (64 bits) is cut into NCHUNK chunks of CHUNK_W bits (the last one
//     narrower: 64 = 6*10 + 4 with the default). Chunk c has a table tab_c of 2**w_c words of
//     ENTRIES bits: bit i of word v is set iff chunk c of entry i's key is v. A lookup reads
//     the word of each of its chunks; entry i matches iff bit i is set in all of them and
//     entry i is valid. A table of up to 2**LUTRAM_W words is LUT RAM (one write port, the
//     lookup reads the old word in the cycle of a write); a larger one a true-dual-port block
//     RAM (a 1024x18 DP16KD each 18 entries), port A read by the lookup. LOOKUP_LATENCY 1, 2:
//     port A writes the word it reads in that cycle (read-before-write), port B any other
//     word, so no port reads a word the other writes. LOOKUP_LATENCY 3: port B writes every
//     word (its enable straight from a register) and a lookup that reads the word written
//     in that cycle takes the word written instead of port A's (see "Lookup"). Either way
//     every lookup sees each table before or after a write of it.
//   * The keys themselves are kept in a shadow RAM (ENTRIES x 64: LUT RAM up to 64 entries,
//     else block RAM; byte-lane writes, one read port) that serves the AXI reads and the
//     sequence. VALID is in flip-flops (reset to 0), beside a one-hot hold mask (reset to 0)
//     that keeps the entry a SRC/DST write rewrites from the lookups; the tables and the
//     shadow are not reset: they start (FPGA configuration, simulation start) as every key 0
//     (SRC/DST read 0), consistent. Invariant: bit i of a table word is set only where the
//     shadow's key i has that chunk value, so a table never makes a pair hit that no entry
//     holds.
//   * A SRC/DST write of entry i, from its request's cycle c0: entry i is held from the
//     lookups (in c1, seen by lookups presented from c2; VALID[i] itself, which AXI reads
//     return, does not change); the shadow's key i (the old key) is read; then every table
//     word the old key selects is formed anew from the shadow, one table at a time, with bit
//     i clear: the keys of entries 0 .. ENTRIES-1 are read one a cycle, bit e of the word set
//     iff chunk c of key e equals the old key's (ENTRIES + 3 cycles a word). A key's bit
//     reaches w_q five cycles after its read (shadow, compare and select registers), so a
//     word is written through port A or B in the second cycle of the next word's reads, and
//     the next word's first bit reaches w_q after the write's last use of w_q. Then the new
//     key is written into the shadow (its byte lanes per WSTRB), read back, and every word
//     the new key selects is formed the same way (bit i now from the shadow); then the hold
//     is released (seen by lookups presented from B). The sequence holds in any cycle a read
//     is accepted (the reads share the shadow's read port). A reset during the sequence
//     stops it; the invariant holds (entry i may then miss its pair until it is written
//     again). Words are formed from the shadow, not read-modified-written, so a write also
//     sets bits a reset during an earlier sequence had left clear.
//
// Lookup
//   * lookup_hit answers exactly LOOKUP_LATENCY cycles after lookup_src/lookup_dst are
//     presented: some valid entry i had src == lookup_src and dst == lookup_dst.
//     LOOKUP_LATENCY 1: the tables' words are AND-ed and OR-ed in the cycle they are read
//     (a long path: only for a user that cannot present the pair earlier); 2: the per-entry
//     match is registered and lookup_hit is the OR of ENTRIES registers; 3: the words read
//     are registered before the per-entry match too (a word read while port B wrote it is
//     registered as all ones and the word written, held in w_q, AND-ed in its place); 4: as
//     3 with one more register per table word right at its block RAM, whose only load is the
//     next register, so placement keeps it beside the RAM (the RAM's clock-to-output, 4.3 ns
//     on ECP5, leaves no room for a long wire).
//   * Write rule: a write takes effect for the lookups presented from the cycle B is raised
//     on. A VALID write is seen by lookups presented from that cycle exactly (earlier ones
//     see the old VALID). During a SRC/DST write (presented from its c0 to B - 1) the old pair
//     of entry i still hits up to the lookup presented in c1 and the new pair hits from B;
//     between the two neither hits through entry i (other entries are not affected).

`default_nettype none

module allow_list #(
    // Number of entries (1 .. 2**(ADDR_W-4), at most 256)
    parameter int ENTRIES        = 64,
    // AXI4-Lite byte address width (the window is 2**ADDR_W bytes)
    parameter int ADDR_W         = 12,
    // Cycles from lookup_src/lookup_dst to lookup_hit (1..4, see "Lookup")
    parameter int LOOKUP_LATENCY = 2,
    // Key bits per CAM table (1..12): a table has 2**CHUNK_W words of ENTRIES bits
    parameter int CHUNK_W        = 10
) (
    input  wire logic              clk,
    input  wire logic              rst,

    // AXI4-Lite slave
    input  wire logic [ADDR_W-1:0] s_axil_awaddr,
    input  wire logic [2:0]        s_axil_awprot,
    input  wire logic              s_axil_awvalid,
    output      logic              s_axil_awready,
    input  wire logic [31:0]       s_axil_wdata,
    input  wire logic [3:0]        s_axil_wstrb,
    input  wire logic              s_axil_wvalid,
    output      logic              s_axil_wready,
    output      logic [1:0]        s_axil_bresp,
    output      logic              s_axil_bvalid,
    input  wire logic              s_axil_bready,
    input  wire logic [ADDR_W-1:0] s_axil_araddr,
    input  wire logic [2:0]        s_axil_arprot,
    input  wire logic              s_axil_arvalid,
    output      logic              s_axil_arready,
    output      logic [31:0]       s_axil_rdata,
    output      logic [1:0]        s_axil_rresp,
    output      logic              s_axil_rvalid,
    input  wire logic              s_axil_rready,

    // Lookup: lookup_hit is the answer for the pair presented LOOKUP_LATENCY cycles before
    input  wire logic [31:0]       lookup_src,
    input  wire logic [31:0]       lookup_dst,
    output      logic              lookup_hit
);

    // ------------------------------------------------------------------------------------
    // Elaboration-time parameter checks
    // ------------------------------------------------------------------------------------
    if (ADDR_W < 5 || ADDR_W > 32) begin : g_check_addr_w
        $error("allow_list: ADDR_W (%0d) must be 5..32", ADDR_W);
    end
    if (ENTRIES < 1 || ENTRIES > 256 || ENTRIES > 2 ** (ADDR_W - 4)) begin : g_check_entries
        $error("allow_list: ENTRIES (%0d) must be 1..min(256, 2**(ADDR_W-4))", ENTRIES);
    end
    if (LOOKUP_LATENCY < 1 || LOOKUP_LATENCY > 4) begin : g_check_latency
        $error("allow_list: LOOKUP_LATENCY (%0d) must be 1..4", LOOKUP_LATENCY);
    end
    if (CHUNK_W < 1 || CHUNK_W > 12) begin : g_check_chunk_w
        $error("allow_list: CHUNK_W (%0d) must be 1..12", CHUNK_W);
    end

    // ------------------------------------------------------------------------------------
    // Constants
    // ------------------------------------------------------------------------------------
    localparam int KEY_W  = 64;                                   // {src, dst}
    localparam int NCHUNK = (KEY_W + CHUNK_W - 1) / CHUNK_W;      // CAM tables
    localparam int WA_W   = ADDR_W - 2;                           // word address width
    localparam int IDX_W  = (ENTRIES > 1) ? $clog2(ENTRIES) : 1;  // entry index width
    localparam int LUTRAM_W = 5;                                  // tables up to 2**5 words: LUT RAM

    // A mapped word address: entry index (word address [WA_W-1:2]) < ENTRIES, field != 3
    function automatic logic is_entry_addr(input logic [WA_W-1:0] a);
        is_entry_addr = 32'(a[WA_W-1:2]) < 32'(ENTRIES) && a[1:0] != 2'd3;
    endfunction

    // Byte-lane merge of a write into a 32-bit register
    function automatic logic [31:0] apply_strb(input logic [31:0] old, input logic [31:0] data,
                                               input logic [3:0] strb);
        logic [31:0] r;
        for (int b = 0; b < 4; b++) begin
            r[8*b +: 8] = strb[b] ? data[8*b +: 8] : old[8*b +: 8];
        end
        apply_strb = r;
    endfunction

    // ------------------------------------------------------------------------------------
    // AXI4-Lite front end
    // ------------------------------------------------------------------------------------
    logic            wr_ready;
    logic            wr_req;
    logic [WA_W-1:0] wr_addr; // word address
    logic [31:0]     wr_data;
    logic [3:0]      wr_strb;
    logic            wr_ack;
    logic            wr_err;
    logic            rd_req;
    logic [WA_W-1:0] rd_addr; // word address
    logic            rd_ack;
    logic [31:0]     rd_data;
    logic            rd_err;

    axil_reg_if #(
        .ADDR_W  (ADDR_W),
        .REQ_REG (1'b1)
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
        .wr_ready       (wr_ready),
        .wr_req         (wr_req),
        .wr_addr        (wr_addr),
        .wr_data        (wr_data),
        .wr_strb        (wr_strb),
        .wr_ack         (wr_ack),
        .wr_err         (wr_err),
        .rd_req         (rd_req),
        .rd_addr        (rd_addr),
        .rd_ack         (rd_ack),
        .rd_data        (rd_data),
        .rd_err         (rd_err)
    );

    // ------------------------------------------------------------------------------------
    // Write decode (c0 = the wr_req cycle)
    // ------------------------------------------------------------------------------------
    typedef enum logic [2:0] {
        S_IDLE,   // no SRC/DST write running
        S_KEY,    // read the shadow's key i (the old one, then the new one)
        S_KWAIT,  // ... into t_q
        S_ISSUE,  // read the shadow's keys 0 .. ENTRIES-1 for the word of table cur_c
        S_DRAIN,  // wait out the word's reads; its write is raised when it leaves
        S_SHWR,   // write the new key into the shadow
        S_DONE    // release the hold of entry i
    } state_e;

    logic             wr_ok;
    logic             wr_key;     // a SRC/DST write: runs the sequence
    logic [IDX_W-1:0] wr_idx;
    state_e           state_q;
    logic             adv;        // the sequence moves on (it waits while a read is accepted)
    logic             phase_q;    // 0: the old key's words, 1: the new key's
    logic             done_q;     // the write is answered (the hold of entry i is released)
    logic [IDX_W-1:0] seq_idx_q;  // data: not reset
    logic             seq_dst_q;  // data: the write is to DST
    logic [31:0]      seq_data_q; // data
    logic [3:0]       seq_strb_q; // data
    // A VALID write and any SLVERR write: performed and answered in c1 (from registers)
    logic             wr1_q;
    logic             wr1_err_q;   // data
    // The write port of VALID (VALID writes only: a SRC/DST write holds its entry instead)
    logic             vwr_q;
    logic [IDX_W-1:0] vwr_idx_q;   // data
    logic             vwr_data_q;  // data

    // A write waits for a read requested in its cycle, as the header documents (a read and a
    // write requested together: the read goes first)
    assign wr_ready = !rd_req;
    assign wr_ok    = is_entry_addr(wr_addr);
    assign wr_idx   = wr_addr[2 +: IDX_W];
    assign wr_key   = wr_req && wr_ok && wr_addr[1:0] != 2'd2;
    assign wr_ack   = wr1_q || done_q;
    assign wr_err   = wr1_q && wr1_err_q;
    assign adv      = !rd_req;

    always_ff @(posedge clk) begin
        if (rst) begin
            wr1_q  <= 1'b0;
            vwr_q  <= 1'b0;
            done_q <= 1'b0;
        end else begin
            wr1_q  <= wr_req && !wr_key;
            vwr_q  <= wr_req && wr_ok && wr_addr[1:0] == 2'd2 && wr_strb[0];
            done_q <= state_q == S_DONE && adv;
        end
    end

    always_ff @(posedge clk) begin
        wr1_err_q  <= !wr_ok;
        vwr_idx_q  <= wr_idx;
        vwr_data_q <= wr_data[0];
    end

    always_ff @(posedge clk) begin
        if (wr_key) begin
            seq_idx_q  <= wr_idx;
            seq_dst_q  <= wr_addr[0];
            seq_data_q <= wr_data;
            seq_strb_q <= wr_strb;
        end
    end

    // VALID (flip-flops) and the hold mask: the lookups see valid_q & ~hold_q. A SRC/DST
    // write holds entry i from c1 until its done_q cycle, so VALID[i] needs no save and
    // restore through a read port (only one write is in flight: no VALID write meets it).
    logic [ENTRIES-1:0] valid_q;
    logic [ENTRIES-1:0] hold_q;
    logic               c1_q;       // c1 of a SRC/DST write

    always_ff @(posedge clk) begin
        if (rst) begin
            valid_q <= '0;
        end else if (vwr_q) begin
            valid_q[vwr_idx_q] <= vwr_data_q;
        end
    end

    always_ff @(posedge clk) begin
        if (rst) begin
            c1_q   <= 1'b0;
            hold_q <= '0;
        end else begin
            c1_q <= wr_key;
            if (done_q) hold_q <= '0;
            else if (c1_q) hold_q[seq_idx_q] <= 1'b1;
        end
    end

    // ------------------------------------------------------------------------------------
    // Sequence of a SRC/DST write
    // ------------------------------------------------------------------------------------
    localparam int C_W = (NCHUNK > 1) ? $clog2(NCHUNK) : 1;

    logic [IDX_W-1:0]   j_q;        // S_ISSUE: the entry whose key is read
    logic [IDX_W-1:0]   j_nx;       // ... its next value
    logic [C_W-1:0]     cur_c_q;    // the table whose word is formed
    logic               sh_re;      // the sequence reads the shadow this cycle
    logic               sh_we;      // ... writes it
    logic               p1_q;       // a sequence read issued in the cycle before
    logic               p2_q;       // ... two cycles before: its key is in sh_q
    logic               x1_q;       // the read is of entry i
    logic               x2_q;
    logic [NCHUNK-1:0]  tb_pre_q;   // a word's write, one cycle before tb_we_q
    logic [NCHUNK-1:0]  tb_we_q;    // write w_q into table c (one-hot), word t_q's chunk
    logic               drain_end;  // S_DRAIN moves on: the word's write is raised
    logic [KEY_W-1:0]   t_q;        // data: the key whose words are formed (old, then new)
    logic [ENTRIES-1:0] w_q;        // data: the word formed, entry e in bit e
    logic [NCHUNK-1:0]  eq;         // chunk c of sh_q equals chunk c of t_q
    logic [NCHUNK-1:0]  eq_q;       // data: eq, a cycle later
    logic               ex_q;       // data: ... that key is entry i's in phase 0 (bit clear)
    logic               ev_q;       // eq_q holds a key for w_q
    logic               bit_q;      // data: the next bit of w_q
    logic               bv_q;       // bit_q is valid: w_q shifts it in
    logic               sq_last;    // sh_q holds a sequence read's key (for w_q or t_q)
    logic [1:0]         wt_q;       // S_KWAIT, S_DRAIN: cycles (not holding) left to wait
    logic               wt_done;    // ... none: the last read's key is in t_q (S_KWAIT),
                                    // its compare in eq_q (S_DRAIN)

    assign sh_re      = adv && (state_q == S_KEY || state_q == S_ISSUE);
    assign sh_we      = adv && state_q == S_SHWR;
    assign wt_done    = wt_q == 2'd0;
    assign drain_end  = adv && state_q == S_DRAIN && wt_done;

    always_ff @(posedge clk) begin
        if (rst) begin
            state_q <= S_IDLE;
            p1_q    <= 1'b0;
            p2_q    <= 1'b0;
        end else begin
            p1_q <= sh_re;
            p2_q <= p1_q;
            unique case (state_q)
                S_IDLE:  if (wr_key) state_q <= S_KEY;
                S_KEY:   if (adv) state_q <= S_KWAIT;
                S_KWAIT: if (adv && wt_done) state_q <= S_ISSUE;
                S_ISSUE: if (adv && 32'(j_q) == 32'(ENTRIES - 1)) state_q <= S_DRAIN;
                S_DRAIN: begin
                    if (drain_end && 32'(cur_c_q) == 32'(NCHUNK - 1)) begin
                        state_q <= phase_q ? S_DONE : S_SHWR;
                    end else if (drain_end) begin
                        state_q <= S_ISSUE;
                    end
                end
                S_SHWR:  if (adv) state_q <= S_KEY;
                S_DONE:  if (adv) state_q <= S_IDLE;
                default: state_q <= S_IDLE;
            endcase
        end
    end

    always_ff @(posedge clk) begin
        // S_KWAIT and S_DRAIN wait out the read pipeline in cycles that do not hold, so every
        // cycle the sequence holds delays it by exactly one
        if (state_q == S_KEY || state_q == S_ISSUE) wt_q <= 2'd2;
        else if (adv && !wt_done) wt_q <= wt_q - 2'd1;
        if (wr_key) phase_q <= 1'b0;
        if (sh_we)  phase_q <= 1'b1;
        j_q <= j_nx;
        if (state_q == S_KWAIT) cur_c_q <= '0;
        if (drain_end) cur_c_q <= cur_c_q + 1'b1;
        // The write two cycles after S_DRAIN ends: the word's last bit enters w_q in between
        for (int c = 0; c < NCHUNK; c++) begin
            tb_pre_q[c] <= !rst && drain_end && 32'(cur_c_q) == c;
        end
        tb_we_q <= rst ? '0 : tb_pre_q;
        x1_q <= j_q == seq_idx_q;
        x2_q <= x1_q;
    end

    // ------------------------------------------------------------------------------------
    // Shadow of the keys (byte lanes): read address R0 / c, sh_q two cycles later
    // ------------------------------------------------------------------------------------
    // The read address is registered a cycle early, so the LUT RAM's address comes from one
    // register: a read's when its AR handshake is now (rd_req is raised next), else where
    // the sequence would read next: key i from S_IDLE (a write's c0), S_KEY and S_SHWR, else
    // j_q's next value. In a cycle that reads neither it is not used.
    logic [IDX_W-1:0] sh_raddr_q;  // data
    logic             ar_hs;
    logic [KEY_W-1:0] sh_rd;     // data: the RAM's registered output
    logic [KEY_W-1:0] sh_q;      // data
    logic [7:0]       sh_lane;   // byte lanes of the key written: DST [31:0], SRC [63:32]

    assign ar_hs  = s_axil_arvalid && s_axil_arready;

    always_comb begin
        j_nx = j_q;
        if (state_q == S_KWAIT || state_q == S_DRAIN) j_nx = '0;
        if (state_q == S_ISSUE && adv) j_nx = j_q + 1'b1;
    end

    always_ff @(posedge clk) begin
        if (ar_hs) begin
            sh_raddr_q <= s_axil_araddr[4 +: IDX_W];
        end else begin
            unique case (state_q)
                S_IDLE:         sh_raddr_q <= wr_idx;
                S_KEY, S_SHWR:  sh_raddr_q <= seq_idx_q;
                default:        sh_raddr_q <= j_nx;
            endcase
        end
    end

    for (genvar b = 0; b < 8; b++) begin : g_lane
        assign sh_lane[b] = seq_strb_q[b % 4] && (seq_dst_q == (b < 4));
    end

    // A read and a write of one key never meet: the sequence writes only while no read is
    // accepted and reads only when it does not write. Up to 64 entries the shadow is LUT RAM
    // (4 Kbit): a block RAM's 4.3 ns clock-to-output would leave sh_q ~1.8 ns of wire to the
    // compares and the read data; a larger shadow is block RAM.
    if (ENTRIES <= 64) begin : g_sh_lut
        (* ram_style = "distributed", no_rw_check *)
        logic [KEY_W-1:0] sh_mem [ENTRIES];

        initial begin
            for (int i = 0; i < ENTRIES; i++) sh_mem[i] = '0;
        end

        always_ff @(posedge clk) begin
            for (int b = 0; b < 8; b++) begin
                if (sh_we && sh_lane[b]) sh_mem[seq_idx_q][8*b +: 8] <= seq_data_q[8*(b%4) +: 8];
            end
            sh_rd <= sh_mem[sh_raddr_q];
        end
    end else begin : g_sh_bram
        (* ram_style = "block", no_rw_check *)
        logic [KEY_W-1:0] sh_mem [ENTRIES];

        initial begin
            for (int i = 0; i < ENTRIES; i++) sh_mem[i] = '0;
        end

        always_ff @(posedge clk) begin
            for (int b = 0; b < 8; b++) begin
                if (sh_we && sh_lane[b]) sh_mem[seq_idx_q][8*b +: 8] <= seq_data_q[8*(b%4) +: 8];
            end
            sh_rd <= sh_mem[sh_raddr_q];
        end
    end

    always_ff @(posedge clk) begin
        sh_q <= sh_rd;
    end

    // The key read by S_KEY, and the words: bit e of the word of table c for value v is set
    // iff chunk c of key e is v (in phase 0 bit i is left clear)
    for (genvar c = 0; c < NCHUNK; c++) begin : g_eq
        localparam int LSB = c * CHUNK_W;
        localparam int W   = (KEY_W - LSB < CHUNK_W) ? KEY_W - LSB : CHUNK_W;
        assign eq[c] = sh_q[LSB +: W] == t_q[LSB +: W];
    end

    assign sq_last = p2_q;

    // A key's bit takes two registers on its way into w_q (the compares, then the table's
    // select), so w_q, whose loads are the tables' write data, is fed from registers
    always_ff @(posedge clk) begin
        if (rst) begin
            ev_q <= 1'b0;
            bv_q <= 1'b0;
        end else begin
            ev_q <= sq_last && state_q != S_KWAIT;
            bv_q <= ev_q;
        end
    end

    always_ff @(posedge clk) begin
        if (sq_last && state_q == S_KWAIT) t_q <= sh_q;
        eq_q  <= eq;
        ex_q  <= x2_q && !phase_q;
        bit_q <= eq_q[cur_c_q] && !ex_q;
        if (bv_q) w_q <= ENTRIES'({bit_q, w_q} >> 1);
    end

    // ------------------------------------------------------------------------------------
    // Read data (R0: rd_req, R1: shadow read, R2: answer from sh_q)
    // ------------------------------------------------------------------------------------
    // VALID is read in two selects (R1: one bit of each group of 2**VLO_W, by the low index
    // bits, registered; R2: the group, into axil_reg_if's read data register), so no register
    // drives an ENTRIES-way select
    localparam int VLO_W = (IDX_W + 1) / 2;            // index bits of the first select
    localparam int VHI_W = IDX_W - VLO_W;              // ... of the second (may be 0)
    localparam int VHW   = (VHI_W > 0) ? VHI_W : 1;
    localparam int VNG   = 2 ** VHI_W;                 // groups

    logic [IDX_W-1:0]       rd_idx;
    logic [IDX_W-1:0]       rd_idx1_q;   // data: R1
    logic [1:0]             rd_p_q;      // R1, R2 of a read
    logic                   rd_ok_q;     // data
    logic [1:0]             rd_field_q;  // data
    logic                   rd_ok1_q;    // data
    logic [1:0]             rd_field1_q; // data
    logic [2**IDX_W-1:0]    valid_pad;   // VALID, index range padded with 0
    logic [VNG-1:0]         vg_q;        // data: R2, the entry's bit of each group
    logic [VHW-1:0]         vhi_q;       // data: R2, the group
    logic                   rd_valid;    // R2: VALID of the entry read

    assign rd_idx    = rd_addr[2 +: IDX_W];
    assign valid_pad = (2**IDX_W)'(valid_q);

    always_ff @(posedge clk) begin
        if (rst) begin
            rd_p_q <= '0;
        end else begin
            rd_p_q <= {rd_p_q[0], rd_req};
        end
    end

    always_ff @(posedge clk) begin
        rd_ok1_q    <= is_entry_addr(rd_addr);
        rd_field1_q <= rd_addr[1:0];
        rd_idx1_q   <= rd_idx;
        rd_ok_q     <= rd_ok1_q;
        rd_field_q  <= rd_field1_q;
        for (int g = 0; g < VNG; g++) begin
            vg_q[g] <= valid_pad[(IDX_W'(g) << VLO_W) | (rd_idx1_q & IDX_W'(2**VLO_W - 1))];
        end
        vhi_q <= VHW'(rd_idx1_q >> VLO_W);
    end

    if (VHI_W > 0) begin : g_vsel
        assign rd_valid = vg_q[vhi_q];
    end else begin : g_vsel1
        logic unused_vhi;  // (one group)
        assign unused_vhi = ^vhi_q;
        assign rd_valid   = vg_q[0];
    end

    assign rd_ack = rd_p_q[1];
    assign rd_err = !rd_ok_q;

    always_comb begin
        rd_data = 32'd0;
        if (rd_ok_q) begin
            unique case (rd_field_q)
                2'd0:    rd_data = sh_q[63:32];
                2'd1:    rd_data = sh_q[31:0];
                default: rd_data = {31'd0, rd_valid};
            endcase
        end
    end

    // ------------------------------------------------------------------------------------
    // Lookup stage 0 (cycle T): the words of every table are read on port A
    // ------------------------------------------------------------------------------------
    logic [KEY_W-1:0] lk_key;
    assign lk_key = {lookup_src, lookup_dst};

    localparam int LAND = (LOOKUP_LATENCY == 4) ? 1 : 0;  // landing registers at the RAMs

    logic [NCHUNK-1:0][ENTRIES-1:0] vec;    // cycle T+1: the word of each table (latency < 4)
    // Cycle T+1+LAND: the word of each table as the match stage takes it, and whether it is
    // not to be used (read as port B wrote it: take w_q; LOOKUP_LATENCY 3, 4)
    logic [NCHUNK-1:0][ENTRIES-1:0] land;
    logic [NCHUNK-1:0]              land_coll;
    logic [ENTRIES-1:0]             valid_s1_q;

    // VALID as it is in cycle T, less the held entry (so a VALID write is seen from its B
    // cycle on, and a SRC/DST write's entry from c2 to B - 1 not at all)
    always_ff @(posedge clk) begin
        if (rst) begin
            valid_s1_q <= '0;
        end else begin
            valid_s1_q <= valid_q & ~hold_q;
        end
    end

    for (genvar c = 0; c < NCHUNK; c++) begin : g_tab
        localparam int LSB = c * CHUNK_W;
        localparam int W   = (KEY_W - LSB < CHUNK_W) ? KEY_W - LSB : CHUNK_W;

        logic [W-1:0]       lk_addr;
        logic [W-1:0]       tb_addr;
        logic               we;
        logic [ENTRIES-1:0] rd_a_q;   // port A word (lookup)

        assign lk_addr = lk_key[LSB +: W];
        assign tb_addr = t_q[LSB +: W];
        assign we      = tb_we_q[c];
        assign vec[c]  = rd_a_q;

        if (W <= LUTRAM_W) begin : g_lut
            // A small table: LUT RAM, whose read in the cycle of a write gives the old word
            (* ram_style = "distributed" *)
            logic [ENTRIES-1:0] tab [2 ** W];

            initial begin
                for (int v = 0; v < 2 ** W; v++) tab[v] = (v == 0) ? '1 : '0;
            end

            always_ff @(posedge clk) begin
                if (we) tab[tb_addr] <= w_q;
                rd_a_q <= tab[lk_addr];
            end

            if (LAND == 1) begin : g_land
                logic [ENTRIES-1:0] land_q;  // data
                always_ff @(posedge clk) land_q <= rd_a_q;
                assign land[c] = land_q;
            end else begin : g_no_land
                assign land[c] = rd_a_q;
            end
            assign land_coll[c] = 1'b0;
        end else if (LOOKUP_LATENCY < 3) begin : g_bram
            // Block RAM. A write of the word the lookup reads in the same cycle goes through
            // port A (read-before-write: the lookup gets the old word); any other write
            // through port B, so the two ports never meet on a word (no_rw_check: no logic
            // around the RAM for that case). Port B decides from its own copy of the address
            // (tb_addr_b_q, equal to tb_addr whenever it writes): with both enables from one
            // address synthesis proves them exclusive and merges the two writes into one port
            // with an address mux, whose write would then meet the lookup's read on the other
            (* ram_style = "block", no_rw_check *)
            logic [ENTRIES-1:0] tab [2 ** W];
            logic [W-1:0]       tb_addr_b_q;  // data
            logic               coll_a;
            logic               coll_b;

            initial begin
                for (int v = 0; v < 2 ** W; v++) tab[v] = (v == 0) ? '1 : '0;
            end

            always_ff @(posedge clk) begin
                if (state_q == S_KWAIT) tb_addr_b_q <= tb_addr;
            end

            assign coll_a = lk_addr == tb_addr;
            assign coll_b = lk_addr == tb_addr_b_q;

            always_ff @(posedge clk) begin
                if (we && coll_a) tab[lk_addr] <= w_q;
                rd_a_q <= tab[lk_addr];
            end

            always_ff @(posedge clk) begin
                if (we && !coll_b) tab[tb_addr_b_q] <= w_q;
            end

            assign land[c]      = rd_a_q;   // (not used at latency 1, 2)
            assign land_coll[c] = 1'b0;
        end else if (LOOKUP_LATENCY == 3) begin : g_bram3
            // Block RAM, LOOKUP_LATENCY 3: port A reads for the lookup, port B writes (its
            // enable a register: no path from the lookup's address to the RAM's controls).
            // When the lookup reads the word port B writes, port A's word is not used
            // (no_rw_check): land_coll marks it and the lookup takes w_q, the word written
            (* ram_style = "block", no_rw_check *)
            logic [ENTRIES-1:0] tab [2 ** W];
            logic               coll_r;

            initial begin
                for (int v = 0; v < 2 ** W; v++) tab[v] = (v == 0) ? '1 : '0;
            end

            always_ff @(posedge clk) begin
                rd_a_q <= tab[lk_addr];
            end

            always_ff @(posedge clk) begin
                if (we) tab[tb_addr] <= w_q;
            end

            always_ff @(posedge clk) begin
                coll_r <= we && lk_addr == tb_addr;
            end

            assign land[c]      = rd_a_q;
            assign land_coll[c] = coll_r;
        end else begin : g_bram4
            // Block RAM, LOOKUP_LATENCY 4: as 3, the word read landing in the RAM's own output
            // register (ram_sdp_reg) in T+2, where a fabric register after the RAM would be
            // placed a wire away from it (its clock-to-output leaves no room for the wire).
            logic               coll_r, coll_r2;
            logic [ENTRIES-1:0] rd_w;

            ram_sdp_reg #(
                .ADDR_W     (W),
                .DATA_W     (ENTRIES),
                .INIT_WORD0 ({ENTRIES{1'b1}})
            ) u_tab (
                .clk   (clk),
                .we    (we),
                .waddr (tb_addr),
                .wdata (w_q),
                .raddr (lk_addr),
                .rdata (rd_w)
            );

            always_ff @(posedge clk) begin
                coll_r  <= we && lk_addr == tb_addr;
                coll_r2 <= coll_r;
            end

            assign rd_a_q       = '0;   // (no word at T+1)
            assign land[c]      = rd_w;
            assign land_coll[c] = coll_r2;
        end
    end

    // ------------------------------------------------------------------------------------
    // Lookup stages 1.. : per-entry match, OR
    // ------------------------------------------------------------------------------------
    // Per-entry match of a set of words and VALID
    function automatic logic [ENTRIES-1:0] match(input logic [NCHUNK-1:0][ENTRIES-1:0] w,
                                                 input logic [ENTRIES-1:0] v);
        logic [ENTRIES-1:0] m;
        m = v;
        for (int c = 0; c < NCHUNK; c++) begin
            m &= w[c];
        end
        match = m;
    endfunction

    if (LOOKUP_LATENCY == 1) begin : g_lat1
        logic unused_land;  // (latency 3, 4; no collisions at latency 1 and 2)
        assign unused_land = ^{land, land_coll};
        assign lookup_hit  = |match(vec, valid_s1_q);
    end else if (LOOKUP_LATENCY == 2) begin : g_lat2
        logic               unused_land;  // as for latency 1
        logic [ENTRIES-1:0] hit_q;

        assign unused_land = ^{land, land_coll};

        always_ff @(posedge clk) begin
            if (rst) begin
                hit_q <= '0;
            end else begin
                hit_q <= match(vec, valid_s1_q);
            end
        end

        assign lookup_hit = |hit_q;
    end else begin : g_lat3
        // The RAMs' outputs go straight into registers (a block RAM's clock-to-output leaves
        // no room for logic). A word not to be used (land_coll) is registered as all ones (the
        // flip-flops' synchronous set) and w_q, the word written, is AND-ed in instead: w_q
        // holds it in the cycle after the write (and, LOOKUP_LATENCY 4, in the one after that)
        // and differs from the word it replaces at most in bit i, which the hold of entry i
        // masks during the sequence
        logic [NCHUNK-1:0][ENTRIES-1:0] vec_q;  // data
        logic [ENTRIES-1:0]             wm_q;   // data: w_q on a collision, else all ones
        logic [ENTRIES-1:0]             land_valid;
        logic [ENTRIES-1:0]             valid_s2_q;
        logic [ENTRIES-1:0]             hit_q;
        logic                           unused_vec;  // (the tables' T+1 words: latency < 4)

        assign unused_vec = ^vec;

        if (LAND == 1) begin : g_land
            logic [ENTRIES-1:0] land_valid_q;
            always_ff @(posedge clk) begin
                land_valid_q <= rst ? '0 : valid_s1_q;
            end
            assign land_valid = land_valid_q;
        end else begin : g_no_land
            assign land_valid = valid_s1_q;
        end

        always_ff @(posedge clk) begin
            for (int c = 0; c < NCHUNK; c++) begin
                vec_q[c] <= land_coll[c] ? '1 : land[c];
            end
            wm_q <= (|land_coll) ? w_q : '1;
        end

        always_ff @(posedge clk) begin
            if (rst) begin
                valid_s2_q <= '0;
                hit_q      <= '0;
            end else begin
                valid_s2_q <= land_valid;
                hit_q      <= match(vec_q, valid_s2_q & wm_q);
            end
        end

        assign lookup_hit = |hit_q;
    end

endmodule

`default_nettype wire
