// SPDX-License-Identifier: Apache-2.0
//
// hash_table: exact-match table, two banks of 4-way buckets, looked up in hardware and filled
// by software (docs/vxlan.md, "The table: `hash_table` and its software side").
//
// Lookup
//   * One lookup per cycle, in order, no backpressure, fixed latency LOOKUP_LATENCY (3 by
//     default): a key presented with lk_valid in cycle t is answered with rs_valid in cycle
//     t+3.
//       cycle t    h0 = CRC-32C(key bytes) mod BUCKETS, h1 = CRC-32(key bytes) mod BUCKETS
//                  (combinational XOR networks), registered with the key
//       cycle t+1  registered read of bucket h0 of bank 0 and bucket h1 of bank 1
//                  (the 8 slot memories at once)
//       cycle t+2  compare the 8 ways, select the value, register
//       cycle t+3  rs_valid, rs_hit, rs_value (rs_value = 0 on a miss)
//     With LOOKUP_LATENCY = 4 the words read (and the collision bypass) are registered once
//     more in fabric before the comparisons, which then happen in cycle t+3: a block RAM's
//     clock-to-output (4.1 ns for an ECP5 DP16KD, docs/performance.md) is no longer in
//     series with the 8 key comparisons and the value multiplexer. Answers in cycle t+4;
//     what a lookup sees of a concurrent command is unchanged (the read is where it was).
//   * Key bytes: the key as a big-endian integer in ceil(KEY_W/8) bytes. CRC-32C: reflected,
//     polynomial 0x82F63B78, init and final xor 0xFFFFFFFF; CRC-32: the zlib one (0xEDB88320).
//   * If a key is valid in more than one way (only transiently, while software relocates an
//     entry, and then with the same value), the first in the order bank 0 way 0..3, bank 1
//     way 0..3 wins.
//
// Memory organisation
//   * 8 slot memories, one per (bank, way): `logic [SLOT_W-1:0] mem [BUCKETS]`, BUCKETS =
//     SLOTS/8, SLOT_W = 1 + KEY_W + VALUE_W, word = {valid, key, value}. A bucket is the same
//     address in the 4 memories of its bank. Memory m = bank*4 + way.
//   * Each memory has two ports on one clock: port A, read-only, for the lookup (registered
//     read with enable); port B, read or write (no-change), for the control side only.
//     That is a true-dual-port BRAM/URAM. A slot is one word of one memory, so a command
//     writes it in a single memory write: a lookup sees the whole old slot or the whole new
//     one. When port B writes the word port A reads in the same cycle, the lookup does not
//     use port A's output (a BRAM in NO_CHANGE/WRITE_FIRST mode returns garbage on such a
//     collision) but the written word, registered beside the read: it sees the new slot.
//   * Memories are not reset. After rst the control side clears every slot (one bucket of all
//     8 memories per cycle, BUCKETS cycles, TBL_STATUS.busy = 1); lookups miss until then.
//
// Control: AXI4-Lite slave (front end: axil_reg_if), ADDR_W-bit byte addresses, 32-bit data (register map of
// docs/vxlan.md). Address bits [1:0] are ignored, AWPROT/ARPROT too.
//   0x000 TBL_INFO     RO  [7:0] log2(SLOTS), [15:8] 4, [31:16] KEY_W
//   0x004 TBL_VALUE_W  RO  VALUE_W
//   0x008 TBL_COUNT    RO  number of valid slots
//   0x00C TBL_CMD      WO  [1:0] op: 0 none, 1 write, 2 delete, 3 read (reads as 0)
//   0x010 TBL_SLOT     RW  [0] bank, [2:1] way, [31:3] bucket
//   0x014 TBL_STATUS   RO  [0] busy, [31] valid bit of the slot last read by op 3
//   0x020 + 4i TBL_KEY[i]   RW, i < ceil(KEY_W/32)   (bits above KEY_W read 0)
//   0x040 + 4i TBL_VALUE[i] RW, i < ceil(VALUE_W/32) (bits above VALUE_W read 0)
//   * Other addresses, and writes to RO registers, answer SLVERR (reads return 0).
//   * A TBL_CMD write with op != 0 (WSTRB[0] set) on a slot whose bucket is >= BUCKETS answers
//     SLVERR and does nothing. Otherwise a command runs for exactly 2 cycles (busy): cycle 1
//     reads the slot on port B, cycle 2 writes it (op 1: {1, KEY, VALUE}; op 2: all zero),
//     or copies it into TBL_KEY/TBL_VALUE/TBL_STATUS[31] (op 3), and updates TBL_COUNT (op 1
//     on an invalid slot +1, op 2 on a valid slot -1). Lookups presented up to the cycle in
//     which the command write is taken (its AW/W handshake) see the old slot, lookups from
//     the next cycle on the new one. B is raised only once the slot is written (valid in
//     the third cycle after the AW/W handshake; a register write's B is valid in the next
//     one): when software sees B, every later lookup sees the new contents.
//   * A command holds the write channel until its B, so TBL_KEY/TBL_VALUE/TBL_SLOT never
//     change under it. During the post-reset clear a write is taken (AW/W) but performed
//     and answered only when the clear is done. Reads are always answered.
//   * Write channel: AW and W in either order or together; one write in flight; B one cycle
//     after the register write (command: after the command). Read channel: R the cycle after
//     AR; one read in flight. WSTRB selects byte lanes of the RW registers.

`default_nettype none

module hash_table #(
    // Key width in bits (1..256)
    parameter int KEY_W = 45,
    // Value width in bits (1..256)
    parameter int VALUE_W = 214,
    // Number of slots: a power of two, 16..2^24 (2 banks x SLOTS/8 buckets x 4 ways)
    parameter int SLOTS = 32768,
    // AXI4-Lite byte address width (7..32): the register window is 2^ADDR_W bytes
    parameter int ADDR_W = 12,
    // Cycles from lk_valid to rs_valid: 3, or 4 with the read words registered before the
    // comparisons (see "Lookup")
    parameter int LOOKUP_LATENCY = 3
) (
    input  wire logic               clk,
    input  wire logic               rst,

    // Lookup request
    input  wire logic               lk_valid,
    input  wire logic [KEY_W-1:0]   lk_key,

    // Lookup result, LOOKUP_LATENCY cycles after the request
    output      logic               rs_valid,
    output      logic               rs_hit,
    output      logic [VALUE_W-1:0] rs_value,

    // AXI4-Lite slave
    input  wire logic [ADDR_W-1:0]  s_axil_awaddr,
    input  wire logic [2:0]         s_axil_awprot,
    input  wire logic               s_axil_awvalid,
    output      logic               s_axil_awready,
    input  wire logic [31:0]        s_axil_wdata,
    input  wire logic [3:0]         s_axil_wstrb,
    input  wire logic               s_axil_wvalid,
    output      logic               s_axil_wready,
    output      logic [1:0]         s_axil_bresp,
    output      logic               s_axil_bvalid,
    input  wire logic               s_axil_bready,
    input  wire logic [ADDR_W-1:0]  s_axil_araddr,
    input  wire logic [2:0]         s_axil_arprot,
    input  wire logic               s_axil_arvalid,
    output      logic               s_axil_arready,
    output      logic [31:0]        s_axil_rdata,
    output      logic [1:0]         s_axil_rresp,
    output      logic               s_axil_rvalid,
    input  wire logic               s_axil_rready
);

    // ------------------------------------------------------------------------------------
    // Elaboration-time parameter checks
    // ------------------------------------------------------------------------------------
    if (KEY_W < 1 || KEY_W > 256) begin : g_err_key_w
        $error("hash_table: KEY_W (%0d) must be 1..256", KEY_W);
    end
    if (VALUE_W < 1 || VALUE_W > 256) begin : g_err_value_w
        $error("hash_table: VALUE_W (%0d) must be 1..256", VALUE_W);
    end
    if (SLOTS < 16 || SLOTS > (1 << 24) || (SLOTS & (SLOTS - 1)) != 0) begin : g_err_slots
        $error("hash_table: SLOTS (%0d) must be a power of two, 16..2^24", SLOTS);
    end
    if (ADDR_W < 7 || ADDR_W > 32) begin : g_err_addr_w
        $error("hash_table: ADDR_W (%0d) must be 7..32", ADDR_W);
    end
    if (LOOKUP_LATENCY != 3 && LOOKUP_LATENCY != 4) begin : g_err_latency
        $error("hash_table: LOOKUP_LATENCY (%0d) must be 3 or 4", LOOKUP_LATENCY);
    end

    // ------------------------------------------------------------------------------------
    // Constants
    // ------------------------------------------------------------------------------------
    localparam int WAYS        = 4;
    localparam int MEMS        = 2 * WAYS;                 // one memory per (bank, way)
    localparam int BUCKETS     = SLOTS / 8;                // per bank
    localparam int BIDX_W      = $clog2(BUCKETS);          // >= 1 (SLOTS >= 16)
    localparam int LOG2_SLOTS  = $clog2(SLOTS);
    localparam int CNT_W       = LOG2_SLOTS + 1;           // 0..SLOTS
    localparam int SLOT_W      = 1 + KEY_W + VALUE_W;      // {valid, key, value}
    localparam int KEY_BYTES   = (KEY_W + 7) / 8;
    localparam int KEY_WORDS   = (KEY_W + 31) / 32;
    localparam int VALUE_WORDS = (VALUE_W + 31) / 32;
    localparam int KEY_PAD     = 32 * KEY_WORDS;
    localparam int VALUE_PAD   = 32 * VALUE_WORDS;
    localparam int WA_W        = ADDR_W - 2;               // word address width

    localparam logic [31:0] CRC32C_POLY = 32'h82F6_3B78;   // reflected Castagnoli
    localparam logic [31:0] CRC32_POLY  = 32'hEDB8_8320;   // reflected IEEE 802.3 (zlib)

    localparam logic [31:0] INFO_VALUE = {16'(KEY_W), 8'(WAYS), 8'(LOG2_SLOTS)};

    // Word addresses (byte address / 4)
    localparam int WA_INFO    = 'h000 / 4;
    localparam int WA_VALUE_W = 'h004 / 4;
    localparam int WA_COUNT   = 'h008 / 4;
    localparam int WA_CMD     = 'h00C / 4;
    localparam int WA_SLOT    = 'h010 / 4;
    localparam int WA_STATUS  = 'h014 / 4;
    localparam int WA_KEY     = 'h020 / 4;
    localparam int WA_VALUE   = 'h040 / 4;

    localparam logic [1:0] OP_NONE   = 2'd0;
    localparam logic [1:0] OP_WRITE  = 2'd1;
    localparam logic [1:0] OP_DELETE = 2'd2;
    localparam logic [1:0] OP_READ   = 2'd3;

    // ------------------------------------------------------------------------------------
    // Hash functions
    // ------------------------------------------------------------------------------------
    // Reflected CRC-32 (init and final xor 0xFFFFFFFF) of the key as a big-endian integer in
    // KEY_BYTES bytes: byte 0 = data[8*KEY_BYTES-1 -: 8], each byte least significant bit
    // first. A constant-bound loop over bits: an XOR network after synthesis.
    function automatic logic [31:0] crc32_key(input logic [8*KEY_BYTES-1:0] data,
                                              input logic [31:0] poly);
        logic [31:0] c;
        logic        fb;
        c = 32'hFFFF_FFFF;
        for (int i = 0; i < KEY_BYTES; i++) begin
            for (int j = 0; j < 8; j++) begin
                fb = c[0] ^ data[8 * (KEY_BYTES - 1 - i) + j];
                c  = {1'b0, c[31:1]} ^ (fb ? poly : 32'd0);
            end
        end
        crc32_key = ~c;
    endfunction

    // ------------------------------------------------------------------------------------
    // Lookup stage 1: hash, register
    // ------------------------------------------------------------------------------------
    logic [8*KEY_BYTES-1:0] lk_bytes;
    logic [31:0]            lk_crc0;
    logic [31:0]            lk_crc1;
    assign lk_bytes = (8 * KEY_BYTES)'(lk_key);
    assign lk_crc0  = crc32_key(lk_bytes, CRC32C_POLY);
    assign lk_crc1  = crc32_key(lk_bytes, CRC32_POLY);

    logic unused_crc;
    assign unused_crc = ^{lk_crc0[31:BIDX_W], lk_crc1[31:BIDX_W]};

    // Valid pipeline: lk_v_q[i] = a lookup is in stage i (stage LOOKUP_LATENCY = result)
    logic [LOOKUP_LATENCY:1] lk_v_q;

    always_ff @(posedge clk) begin
        if (rst) lk_v_q <= '0;
        else     lk_v_q <= {lk_v_q[LOOKUP_LATENCY-1:1], lk_valid};
    end

    logic                     s1_valid;
    logic [KEY_W-1:0]         s1_key_q;   // data: not reset
    logic [1:0][BIDX_W-1:0]   s1_idx_q;   // bucket per bank (data: not reset)

    assign s1_valid = lk_v_q[1];

    always_ff @(posedge clk) begin
        s1_key_q    <= lk_key;
        s1_idx_q[0] <= lk_crc0[BIDX_W-1:0];
        s1_idx_q[1] <= lk_crc1[BIDX_W-1:0];
    end

    // ------------------------------------------------------------------------------------
    // Control-side memory port signals (driven by the command engine below)
    // ------------------------------------------------------------------------------------
    logic [BIDX_W-1:0] ctl_addr;
    logic              ctl_re;
    logic [MEMS-1:0]   ctl_we;
    logic [SLOT_W-1:0] ctl_wdata;

    // ------------------------------------------------------------------------------------
    // Slot memories (lookup stage 2: registered read of both buckets)
    // ------------------------------------------------------------------------------------
    logic [MEMS-1:0][SLOT_W-1:0] lk_rd;   // port A read data, per memory
    logic [MEMS-1:0][SLOT_W-1:0] ctl_rd;  // port B read data, per memory

    for (genvar m = 0; m < MEMS; m++) begin : g_mem
        logic [SLOT_W-1:0] mem [BUCKETS];
        logic [SLOT_W-1:0] rd_a_q;
        logic [SLOT_W-1:0] rd_b_q;

        // Port A: lookup read
        always_ff @(posedge clk) begin
            if (s1_valid) rd_a_q <= mem[s1_idx_q[m / WAYS]];
        end

        // Port B: control write or read
        always_ff @(posedge clk) begin
            if (ctl_we[m]) begin
                mem[ctl_addr] <= ctl_wdata;
            end else if (ctl_re) begin
                rd_b_q <= mem[ctl_addr];
            end
        end

        assign lk_rd[m]  = rd_a_q;
        assign ctl_rd[m] = rd_b_q;
    end

    logic             s2_ok_q;    // the memory read happened after the post-reset clear
    logic [KEY_W-1:0] s2_key_q;   // data: not reset
    logic             clearing;   // the table is being cleared (command engine)

    always_ff @(posedge clk) begin
        if (rst) s2_ok_q <= 1'b0;
        else     s2_ok_q <= !clearing;
    end

    always_ff @(posedge clk) begin
        s2_key_q <= s1_key_q;
    end

    // Collision bypass: when port B writes the word that port A reads in the same cycle, the
    // lookup takes the written word (the new slot) instead of port A's output, so the result
    // does not depend on what the memory primitive returns on a read/write collision.
    logic [MEMS-1:0]   byp_d;
    logic [MEMS-1:0]   byp_q;
    logic [SLOT_W-1:0] byp_word_q;  // data: not reset

    for (genvar m = 0; m < MEMS; m++) begin : g_byp
        assign byp_d[m] = s1_valid && ctl_we[m] && ctl_addr == s1_idx_q[m / WAYS];
    end

    always_ff @(posedge clk) begin
        if (rst) byp_q <= '0;
        else     byp_q <= byp_d;
    end

    always_ff @(posedge clk) begin
        if (|byp_d) byp_word_q <= ctl_wdata;
    end

    // ------------------------------------------------------------------------------------
    // LOOKUP_LATENCY = 4: the words read, the bypass and the key registered once more
    // ------------------------------------------------------------------------------------
    logic                        cmp_valid;
    logic                        cmp_ok;
    logic [KEY_W-1:0]            cmp_key;       // data: not reset
    logic [MEMS-1:0][SLOT_W-1:0] cmp_rd;        // data: not reset
    logic [MEMS-1:0]             cmp_byp;
    logic [SLOT_W-1:0]           cmp_byp_word;  // data: not reset

    assign cmp_valid = lk_v_q[LOOKUP_LATENCY-1];

    if (LOOKUP_LATENCY == 4) begin : g_rd_reg
        always_ff @(posedge clk) begin
            cmp_key      <= s2_key_q;
            cmp_rd       <= lk_rd;
            cmp_byp_word <= byp_word_q;
        end
        always_ff @(posedge clk) begin
            if (rst) begin
                cmp_ok  <= 1'b0;
                cmp_byp <= '0;
            end else begin
                cmp_ok  <= s2_ok_q;
                cmp_byp <= byp_q;
            end
        end
    end else begin : g_rd_direct
        assign cmp_ok       = s2_ok_q;
        assign cmp_key      = s2_key_q;
        assign cmp_rd       = lk_rd;
        assign cmp_byp      = byp_q;
        assign cmp_byp_word = byp_word_q;
    end

    // ------------------------------------------------------------------------------------
    // Lookup stage 3 (4): compare the 8 ways, select, register
    // ------------------------------------------------------------------------------------
    logic [MEMS-1:0]    way_hit;
    logic               lk_hit;
    logic               lk_byp;     // the selected way is the bypassed one
    logic [VALUE_W-1:0] lk_rd_value;
    logic [VALUE_W-1:0] lk_value;

    for (genvar m = 0; m < MEMS; m++) begin : g_cmp
        logic [KEY_W:0] tag;  // {valid, key}
        assign tag        = cmp_byp[m] ? cmp_byp_word[SLOT_W-1:VALUE_W] : cmp_rd[m][SLOT_W-1:VALUE_W];
        assign way_hit[m] = cmp_ok && tag[KEY_W] && tag[KEY_W-1:0] == cmp_key;
    end

    always_comb begin
        lk_hit      = 1'b0;
        lk_byp      = 1'b0;
        lk_rd_value = '0;
        for (int m = MEMS - 1; m >= 0; m--) begin   // memory 0 has priority
            if (way_hit[m]) begin
                lk_hit      = 1'b1;
                lk_byp      = cmp_byp[m];
                lk_rd_value = cmp_rd[m][VALUE_W-1:0];
            end
        end
        lk_value = lk_byp ? cmp_byp_word[VALUE_W-1:0] : lk_rd_value;
    end

    logic               rs_hit_q;
    logic [VALUE_W-1:0] rs_value_q;  // data: not reset

    always_ff @(posedge clk) begin
        if (rst) rs_hit_q <= 1'b0;
        else     rs_hit_q <= cmp_valid && lk_hit;
    end

    always_ff @(posedge clk) begin
        rs_value_q <= lk_value;
    end

    assign rs_valid = lk_v_q[LOOKUP_LATENCY];
    assign rs_hit   = rs_hit_q;
    assign rs_value = rs_value_q;

    // ------------------------------------------------------------------------------------
    // AXI4-Lite front end. A write is taken (wr_req) only while the command engine is idle,
    // and performed in that cycle; a register write is answered at once (B in the next
    // cycle), a command when its slot is written (S_EX, B in the cycle after). A read is
    // answered in its rd_req cycle.
    // ------------------------------------------------------------------------------------
    logic            idle;     // command engine idle (set below)
    logic            wr_req;
    logic [WA_W-1:0] wr_addr;  // word address
    logic [31:0]     wr_data;
    logic [3:0]      wr_strb;
    logic            wr_ack;
    logic            wr_err;
    logic            rd_req;
    logic [WA_W-1:0] rd_addr;  // word address
    logic [31:0]     rd_data;
    logic            rd_ok;

    // clk, rst, s_axil_* and the wr_*/rd_* request signals connect by name (.*)
    axil_reg_if #(
        .ADDR_W (ADDR_W)
    ) u_axil (
        .*,
        .wr_ready (idle),
        .wr_ack   (wr_ack),
        .wr_err   (wr_err),
        .rd_ack   (rd_req),
        .rd_err   (!rd_ok)
    );

    // Register index helpers (word address -> KEY/VALUE word, or "not one")
    function automatic logic is_key_addr(input logic [WA_W-1:0] a);
        is_key_addr = 32'(a) >= WA_KEY && 32'(a) < WA_KEY + KEY_WORDS;
    endfunction

    function automatic logic is_value_addr(input logic [WA_W-1:0] a);
        is_value_addr = 32'(a) >= WA_VALUE && 32'(a) < WA_VALUE + VALUE_WORDS;
    endfunction

    // Write decode
    logic [31:0] slot_q;        // TBL_SLOT
    logic        slot_in_range; // TBL_SLOT names a slot of this table
    logic        wr_cmd;
    logic        wr_slot;
    logic        wr_key;
    logic        wr_value;
    logic        wr_ok;
    logic        cmd_start;
    logic [2:0]  wr_kidx;       // KEY/VALUE word index of the write
    logic [2:0]  wr_vidx;

    assign slot_in_range = slot_q[31:3 + BIDX_W] == '0;
    assign wr_cmd    = 32'(wr_addr) == WA_CMD;
    assign wr_slot   = 32'(wr_addr) == WA_SLOT;
    assign wr_key    = is_key_addr(wr_addr);
    assign wr_value  = is_value_addr(wr_addr);
    assign wr_kidx   = wr_addr[2:0];
    assign wr_vidx   = wr_addr[2:0];
    assign cmd_start = wr_req && wr_cmd && wr_strb[0] && wr_data[1:0] != OP_NONE && slot_in_range;
    assign wr_ok     = wr_slot || wr_key || wr_value
                       || (wr_cmd && !(wr_strb[0] && wr_data[1:0] != OP_NONE && !slot_in_range));

    // ------------------------------------------------------------------------------------
    // Command engine
    // ------------------------------------------------------------------------------------
    typedef enum logic [1:0] {
        S_IDLE  = 2'd0,
        S_CLEAR = 2'd1,  // after reset: zero every bucket of the 8 memories
        S_RD    = 2'd2,  // read the slot on port B
        S_EX    = 2'd3   // write it / copy it out, update TBL_COUNT, answer B
    } state_t;

    state_t            state_q;
    logic [1:0]        op_q;
    logic [BIDX_W-1:0] clear_addr_q;
    logic [CNT_W-1:0]  count_q;
    logic              rd_valid_q;  // TBL_STATUS[31]

    logic [KEY_W-1:0]   key_q;      // TBL_KEY   (data: not reset)
    logic [VALUE_W-1:0] value_q;    // TBL_VALUE (data: not reset)

    logic [$clog2(MEMS)-1:0] sel;    // memory of TBL_SLOT: bank*4 + way
    logic [SLOT_W-1:0]       sel_rd;
    logic                    old_valid;

    assign idle      = state_q == S_IDLE;
    assign clearing  = state_q == S_CLEAR;
    assign sel       = {slot_q[0], slot_q[2:1]};
    assign sel_rd    = ctl_rd[sel];
    assign old_valid = sel_rd[SLOT_W-1];

    assign ctl_addr  = clearing ? clear_addr_q : slot_q[3 +: BIDX_W];
    assign ctl_re    = state_q == S_RD;
    assign ctl_wdata = (!clearing && op_q == OP_WRITE) ? {1'b1, key_q, value_q} : '0;

    always_comb begin
        for (int m = 0; m < MEMS; m++) begin
            ctl_we[m] = clearing
                        || (state_q == S_EX && op_q != OP_READ && sel == ($clog2(MEMS))'(m));
        end
    end

    always_ff @(posedge clk) begin
        if (rst) begin
            state_q      <= S_CLEAR;
            clear_addr_q <= '0;
            count_q      <= '0;
            rd_valid_q   <= 1'b0;
        end else begin
            unique case (state_q)
                S_CLEAR: begin
                    clear_addr_q <= clear_addr_q + 1'b1;
                    if (clear_addr_q == BIDX_W'(BUCKETS - 1)) state_q <= S_IDLE;
                end
                S_IDLE: begin
                    if (cmd_start) state_q <= S_RD;
                end
                S_RD: begin
                    state_q <= S_EX;
                end
                S_EX: begin
                    state_q <= S_IDLE;
                    if (op_q == OP_WRITE && !old_valid)  count_q <= count_q + 1'b1;
                    if (op_q == OP_DELETE && old_valid)  count_q <= count_q - 1'b1;
                    if (op_q == OP_READ)                 rd_valid_q <= old_valid;
                end
                default: state_q <= S_IDLE;
            endcase
        end
    end

    always_ff @(posedge clk) begin
        if (cmd_start) op_q <= wr_data[1:0];
    end

    // Write answer: a register write (or a refused command) at once, a command in S_EX
    assign wr_ack = (wr_req && !cmd_start) || state_q == S_EX;
    assign wr_err = wr_req && !wr_ok;

    // ------------------------------------------------------------------------------------
    // TBL_SLOT, TBL_KEY, TBL_VALUE
    // ------------------------------------------------------------------------------------
    always_ff @(posedge clk) begin
        if (rst) begin
            slot_q <= '0;
        end else if (wr_req && wr_slot) begin
            for (int b = 0; b < 4; b++) begin
                if (wr_strb[b]) slot_q[8*b +: 8] <= wr_data[8*b +: 8];
            end
        end
    end

    always_ff @(posedge clk) begin
        if (state_q == S_EX && op_q == OP_READ) begin
            key_q   <= sel_rd[VALUE_W +: KEY_W];
            value_q <= sel_rd[VALUE_W-1:0];
        end else if (wr_req) begin
            for (int b = 0; b < KEY_W; b++) begin
                if (wr_key && wr_kidx == 3'(b / 32) && wr_strb[(b % 32) / 8]) begin
                    key_q[b] <= wr_data[b % 32];
                end
            end
            for (int b = 0; b < VALUE_W; b++) begin
                if (wr_value && wr_vidx == 3'(b / 32) && wr_strb[(b % 32) / 8]) begin
                    value_q[b] <= wr_data[b % 32];
                end
            end
        end
    end

    // ------------------------------------------------------------------------------------
    // Read data (unmapped: 0, SLVERR)
    // ------------------------------------------------------------------------------------
    logic [KEY_PAD-1:0]   key_pad;
    logic [VALUE_PAD-1:0] value_pad;

    assign key_pad   = KEY_PAD'(key_q);
    assign value_pad = VALUE_PAD'(value_q);

    always_comb begin
        rd_data = 32'd0;
        rd_ok   = 1'b1;
        if (32'(rd_addr) == WA_INFO) begin
            rd_data = INFO_VALUE;
        end else if (32'(rd_addr) == WA_VALUE_W) begin
            rd_data = 32'(VALUE_W);
        end else if (32'(rd_addr) == WA_COUNT) begin
            rd_data = 32'(count_q);
        end else if (32'(rd_addr) == WA_CMD) begin
            rd_data = 32'd0;
        end else if (32'(rd_addr) == WA_SLOT) begin
            rd_data = slot_q;
        end else if (32'(rd_addr) == WA_STATUS) begin
            rd_data = {rd_valid_q, 30'd0, !idle};
        end else if (is_key_addr(rd_addr)) begin
            for (int i = 0; i < KEY_WORDS; i++) begin
                if (rd_addr[2:0] == 3'(i)) rd_data = key_pad[32*i +: 32];
            end
        end else if (is_value_addr(rd_addr)) begin
            for (int i = 0; i < VALUE_WORDS; i++) begin
                if (rd_addr[2:0] == 3'(i)) rd_data = value_pad[32*i +: 32];
            end
        end else begin
            rd_ok = 1'b0;
        end
    end

endmodule

`default_nettype wire
