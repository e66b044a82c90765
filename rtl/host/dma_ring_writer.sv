// SPDX-License-Identifier: Apache-2.0
//
// dma_ring_writer: captured frames into per-queue rings in host memory over an AXI4 write
// master (docs/host.md, "Packed DMA rings"). The golden model is wirespeed/model/dma.py.
//
// Each frame becomes a record: a 16-byte header, the frame, zeros up to a multiple of 8 bytes
// (at every bus width: records are packed, a record starts at any 8-byte lane of a beat).
// Records of a queue are written back to back into its ring (a power of two of 4 KiB..1 GiB,
// based at a multiple of its size); a record may wrap from the ring's end to its start. The
// header, little-endian:
//   0x0 u16 length (frame bytes)   0x2 u8 queue   0x3 u8 [2:0] hash type, [3] RX error (tuser),
//   [5:4] port, [7:6] flags        0x4 u32 hash   0x8 u64 timestamp (ns)
// Ring positions are free-running 32-bit byte counters: PROD (the writer's, written back to
// the queue's write-back address once the records before it are acknowledged) and CONS (the
// host's, written to Q_CONS). A record is written only if PROD + its size <= CONS + ring size,
// so nothing the host has not consumed is ever overwritten; otherwise it is dropped and
// counted (Q_DROP_FULL; a disabled queue: Q_DROP_OFF). CONS + ring size is taken as it is
// when the frame's last beat is in (E1): a CONS written later counts for the frames after.
//
// Input: s_axis_* never stalls (tready is 1 after reset). The sideband s_axis_t{queue, ts,
// hash, htype, port, flags} is sampled on each frame's last beat. Frames are stored whole in
// a buffer of BUF_BYTES (store and forward): a frame that does not fit (buffer or its frame
// record queue full when it starts, or the buffer full mid-frame) is dropped whole and counted
// under its queue (Q_DROP_BUF).
//
// Output: writes are gathered per queue, so that PCIe carries full TLPs however RSS spreads
// the frames: each queue's current BURST_BYTES block of its ring is staged on chip (QUEUES x
// 8 blocks, two banks) and written as one burst when full; a block not full is written (from
// its first unwritten byte to the last record's end) once a record has waited FLUSH_CYCLES in
// it, or at once when the input has been quiet IDLE_GAP cycles. Bursts are INCR, full bus
// width, inside one BURST_BYTES block (never 4 KiB), their strobes one run of 8-byte granules
// (only the first and last beat partial); no ring byte is written twice. The producer
// write-back is a one-beat write of 4 bytes (its strobes), issued after the B of every burst
// it covers.
//
// Pipeline (cycles; registers at the end of each)
//   input: I the beat registered; F written to the buffer (frame length counted); E1 length;
//   E2 the frame record queued with its queue's CONS + ring size (as at E1; read in I and E1)
//   (stat FIFO, 2 more cycles to its head).
//   decision (one record every 2 cycles at most, which is every record of 2+ beats at one
//   beat a cycle): D0 the record registered (off the FIFO's block RAM); D1 the queue's state
//   read, the record's CONS + ring size - size; D2 PROD (the previous record's forwarded) +
//   size, and the room (D1's difference - PROD); D3 the fit (the room's sign) updates PROD,
//   the command queued (cmd FIFO).
//   mover (one record beat a cycle, records back to back): M0 the beat planned (buffer read
//   issued), or a timeout flush in its slot, and its queue's gather state read in each group
//   of 4 queues; M1 (P) the group picked, the update of the op before forwarded, the flush
//   decided; M2 the buffer's word (the block RAM's own register); M2b registered again; M3
//   the record's beat composed (header, frame shifted by 16 bytes above 128 bits); R rotated
//   to the record's 8-byte lane; S written to staging words w and w + 1 (one per bank), the
//   flush queued. reader (one beat a cycle): R0 the staging address; R1 the RAMs' read; R2
//   their output registers; R3 the bank's word and the strobes, into the W FIFO with the
//   burst's last-beat flag, a flush's AW entry with its first beat.
//   AXI: the AW output register (data bursts and write-backs), the W output register, B
//   always ready.
//   The command, flush and AW queues are prefetch_fifo: a word queued in cycle t is at the
//   head in t + 2, held in a two-slot buffer filled ahead, so a consumer's pop steps only a
//   few registers and never reaches the load enable of the queue's word.
//
// Latency: see docs/host.md (tb/dma_ring_writer measures it).

`default_nettype none

module dma_ring_writer
    import dma_ring_writer_pkg::*;
#(
    // AXI4-Stream and AXI4 data width in bits (64, 128, 256 or 512)
    parameter int DATA_W = 256,
    // tkeep bits: one per byte
    parameter int KEEP_W = DATA_W / 8,
    // AXI4 address width (32..64)
    parameter int ADDR_W = 64,
    // Queues (rings), 1..256
    parameter int QUEUES = 16,
    // The frame buffer in bytes (a power of two, 4 KiB..32 KiB, at least 16 beats)
    parameter int BUF_BYTES = 16384,
    // Frame records the buffer can hold (a power of two, 8..256)
    parameter int FRAMES = 64,
    // Largest burst in bytes (a power of two, 2 beats..4096)
    parameter int BURST_BYTES = 256,
    // Writes in flight (AW issued, B not yet back): a power of two, 2..64
    parameter int MAX_OUTSTANDING = 16,
    // Cycles between producer write-backs while data moves (2..1024): under load a
    // write-back takes one AW and one W slot in WB_GAP cycles; when the mover is idle, at once
    parameter int WB_GAP = 64,
    // AXI4-Lite byte address width (12..16); the map needs 0x100 + 0x40 * QUEUES bytes
    parameter int AXIL_ADDR_W = 12,
    // A queue's staged bytes are flushed at most this many cycles after a record ended in
    // them (16..4096); sooner when the input is quiet (docs/host.md, "Gathering")
    parameter int FLUSH_CYCLES = 256
) (
    input  wire logic                   clk,
    input  wire logic                   rst,

    // Frames in (never stalled) and their sideband, sampled with tlast
    input  wire logic [DATA_W-1:0]      s_axis_tdata,
    input  wire logic [KEEP_W-1:0]      s_axis_tkeep,
    input  wire logic                   s_axis_tvalid,
    output      logic                   s_axis_tready,
    input  wire logic                   s_axis_tlast,
    input  wire logic                   s_axis_tuser,    // RX error: the header's bit
    input  wire logic [$clog2(QUEUES > 1 ? QUEUES : 2)-1:0] s_axis_tqueue,
    input  wire logic [63:0]            s_axis_tts,
    input  wire logic [31:0]            s_axis_thash,
    input  wire logic [2:0]             s_axis_thtype,
    input  wire logic [1:0]             s_axis_tport,
    input  wire logic [1:0]             s_axis_tflags,

    // AXI4 write master
    output      logic [0:0]             m_axi_awid,
    output      logic [ADDR_W-1:0]      m_axi_awaddr,
    output      logic [7:0]             m_axi_awlen,
    output      logic [2:0]             m_axi_awsize,
    output      logic [1:0]             m_axi_awburst,
    output      logic [3:0]             m_axi_awcache,
    output      logic [2:0]             m_axi_awprot,
    output      logic                   m_axi_awvalid,
    input  wire logic                   m_axi_awready,
    output      logic [DATA_W-1:0]      m_axi_wdata,
    output      logic [KEEP_W-1:0]      m_axi_wstrb,
    output      logic                   m_axi_wlast,
    output      logic                   m_axi_wvalid,
    input  wire logic                   m_axi_wready,
    input  wire logic [0:0]             m_axi_bid,
    input  wire logic [1:0]             m_axi_bresp,
    input  wire logic                   m_axi_bvalid,
    output      logic                   m_axi_bready,

    // AXI4-Lite slave (registers)
    input  wire logic [AXIL_ADDR_W-1:0] s_axil_awaddr,
    input  wire logic [2:0]             s_axil_awprot,
    input  wire logic                   s_axil_awvalid,
    output      logic                   s_axil_awready,
    input  wire logic [31:0]            s_axil_wdata,
    input  wire logic [3:0]             s_axil_wstrb,
    input  wire logic                   s_axil_wvalid,
    output      logic                   s_axil_wready,
    output      logic [1:0]             s_axil_bresp,
    output      logic                   s_axil_bvalid,
    input  wire logic                   s_axil_bready,
    input  wire logic [AXIL_ADDR_W-1:0] s_axil_araddr,
    input  wire logic [2:0]             s_axil_arprot,
    input  wire logic                   s_axil_arvalid,
    output      logic                   s_axil_arready,
    output      logic [31:0]            s_axil_rdata,
    output      logic [1:0]             s_axil_rresp,
    output      logic                   s_axil_rvalid,
    input  wire logic                   s_axil_rready
);

    // ------------------------------------------------------------------------------------
    // Parameters
    // ------------------------------------------------------------------------------------
    localparam int KW      = DATA_W / 8;            // bytes a beat = the record alignment
    localparam int LOG_KW  = $clog2(KW);
    localparam int QW      = $clog2(QUEUES > 1 ? QUEUES : 2);
    localparam int DEPTH   = BUF_BYTES / KW;        // buffer beats
    localparam int BP_W    = $clog2(DEPTH);
    localparam int NB_W    = BP_W + 2;              // beats of a record (in or out)
    localparam int HDR     = 16;                    // header bytes
    localparam int HB      = KW <= HDR ? HDR / KW : 0;   // header-only beats
    localparam int SH      = KW > HDR ? HDR : 0;    // the frame's shift within a beat
    localparam int BB      = BURST_BYTES / KW;      // beats of the largest burst
    localparam int WD      = 1 << $clog2(2 * BB + 16);   // W FIFO words: two bursts + slack
    localparam int WD_W    = $clog2(WD);
    localparam int CD      = 16;                    // decided commands queued for the mover
    localparam int OFF_W   = 30;                    // ring offsets (rings up to 1 GiB)
    localparam int BASE_W  = ADDR_W - 12;           // a ring base's bits above 4 KiB
    localparam int RAW     = AXIL_ADDR_W - 2;
    localparam int R8_W    = 14;                    // a record's 8-byte units (<= 8194)
    localparam int G       = KW / 8;                // 8-byte granules a beat
    localparam int LG      = $clog2(G);
    localparam int LGW     = LG > 0 ? LG : 1;
    localparam int LOG_BB  = $clog2(BURST_BYTES);
    localparam int BBW     = $clog2(BB);            // a beat's index in its block
    localparam int BLKG    = BURST_BYTES / 8;       // granules a block
    localparam int BGW     = $clog2(BLKG);
    localparam int BLK_W   = ADDR_W - LOG_BB;       // a block's address >> LOG_BB
    localparam int SB      = 8;                     // staging blocks a queue (a ring's 4 KiB holds them)
    localparam int SBW     = 3;                     // log2 SB
    localparam int SA_W    = QW + SBW + BBW;        // staging word: {queue, block mod SB, beat}
    localparam int FLD     = 32;                    // flushes queued for the reader
    localparam int PC_W    = $clog2(FLD) + 2;
    localparam int AGE_W   = $clog2(FLUSH_CYCLES + 1);
    localparam int IDLE_GAP = 32;                   // input quiet this long: flush at once
    localparam int QT_W    = $clog2(IDLE_GAP + 1);

    if (DATA_W != 64 && DATA_W != 128 && DATA_W != 256 && DATA_W != 512) begin : g_chk_dw
        $error("dma_ring_writer: DATA_W (%0d) must be 64, 128, 256 or 512", DATA_W);
    end
    if (KEEP_W * 8 != DATA_W) begin : g_chk_kw
        $error("dma_ring_writer: KEEP_W must be DATA_W / 8");
    end
    if (ADDR_W < 32 || ADDR_W > 64) begin : g_chk_aw
        $error("dma_ring_writer: ADDR_W (%0d) must be 32..64", ADDR_W);
    end
    if (QUEUES < 1 || QUEUES > 256) begin : g_chk_q
        $error("dma_ring_writer: QUEUES (%0d) must be 1..256", QUEUES);
    end
    if (BUF_BYTES < 4096 || BUF_BYTES > 32768 || (1 << $clog2(BUF_BYTES)) != BUF_BYTES
        || DEPTH < 16) begin : g_chk_buf
        $error("dma_ring_writer: BUF_BYTES (%0d) must be a power of two, 4096..32768, 16+ beats",
               BUF_BYTES);
    end
    if (FRAMES < 8 || FRAMES > 256 || (1 << $clog2(FRAMES)) != FRAMES) begin : g_chk_fr
        $error("dma_ring_writer: FRAMES (%0d) must be a power of two, 8..256", FRAMES);
    end
    // 4+ beats: a block's flush is counted pending before the mover can reach the next block
    // of its slot; <= 512: a 4 KiB ring holds the SB (8) staging slots
    if (BURST_BYTES < 4 * KW || BURST_BYTES > 512
        || (1 << $clog2(BURST_BYTES)) != BURST_BYTES) begin : g_chk_burst
        $error("dma_ring_writer: BURST_BYTES (%0d) must be a power of two, 4 beats..512",
               BURST_BYTES);
    end
    if (FLUSH_CYCLES < 16 || FLUSH_CYCLES > 4096) begin : g_chk_flush
        $error("dma_ring_writer: FLUSH_CYCLES (%0d) must be 16..4096", FLUSH_CYCLES);
    end
    if (MAX_OUTSTANDING < 2 || MAX_OUTSTANDING > 64
        || (1 << $clog2(MAX_OUTSTANDING)) != MAX_OUTSTANDING) begin : g_chk_out
        $error("dma_ring_writer: MAX_OUTSTANDING (%0d) must be a power of two, 2..64",
               MAX_OUTSTANDING);
    end
    if (WB_GAP < 2 || WB_GAP > 1024) begin : g_chk_wb_gap
        $error("dma_ring_writer: WB_GAP (%0d) must be 2..1024", WB_GAP);
    end
    if (AXIL_ADDR_W < 12 || AXIL_ADDR_W > 16 || 256 + 64 * QUEUES > (1 << AXIL_ADDR_W))
    begin : g_chk_axil
        $error("dma_ring_writer: AXIL_ADDR_W (%0d) must be 12..16 and hold 0x100 + 0x40 * QUEUES",
               AXIL_ADDR_W);
    end

    // ------------------------------------------------------------------------------------
    // Per-queue state (registers: written by the datapath or the host, read by muxes)
    // ------------------------------------------------------------------------------------
    logic [QUEUES-1:0]             q_en;
    logic [QUEUES-1:0][4:0]        q_lsize;     // log2 ring size, 12..30
    logic [QUEUES-1:0][BASE_W-1:0] q_base;      // ring base [ADDR_W-1:12]
    logic [QUEUES-1:0][ADDR_W-3:0] q_wb;        // write-back address [ADDR_W-1:2]
    logic [QUEUES-1:0][31:0]       q_cons;      // host's consumer counter
    logic [QUEUES-1:0][31:0]       q_lim;       // q_cons + ring size (lags q_cons: safe)
    logic [QUEUES-1:0][31:0]       q_sz;        // 1 << q_lsize, decoded as it is written
    logic [QUEUES-1:0][31:0]       q_prod;      // allocated producer counter
    logic [QUEUES-1:0][31:0]       q_cprod;     // committed (acknowledged) producer counter
    logic [QUEUES-1:0][31:0]       n_frames;
    logic [QUEUES-1:0][31:0]       n_bytes;
    logic [QUEUES-1:0][31:0]       n_full;
    logic [QUEUES-1:0][31:0]       n_buf;
    logic [QUEUES-1:0][31:0]       n_off;
    logic [31:0]                   n_berr;      // B responses with an error
    logic [31:0]                   n_wb;        // write-backs issued
    logic [31:0]                   n_bursts;    // data bursts issued
    // A queue's limit after a CONS or CTRL write (register writes, below): c2 read, c3 summed,
    // c4 written
    logic           lim_v1_q;
    logic           lim_v2_q;
    logic           lim_v3_q;   // c4 (lim_oh3_q's write), for E1's forward
    logic [QW-1:0]  lim_q1_q;
    logic [QW-1:0]  lim_q2_q;
    logic [QW-1:0]  lim_q3_q;
    logic [1:0][QUEUES-1:0] lim_oh1_q;   // lim_q1_q one-hot, two copies (the c2 reads)
    logic [QUEUES-1:0] lim_oh2_q;        // lim_v2_q for queue q
    logic [QUEUES-1:0] lim_oh3_q;        // c4's write enables
    logic [31:0]    lim_new_q;  // c3: the new limit (registered: it fans out to every queue),
                                // held until the next (E1 forwards it)
    logic [31:0]    lim_cons_q;
    logic [31:0]    lim_sz_q;   // the ring size (read decoded at c2, so c3 is the add alone)

    // A queue's 32-bit register by a one-hot of the queue: an AND-OR
    function automatic logic [31:0] rd_pick(input logic [QUEUES-1:0] oh,
                                            input logic [QUEUES-1:0][31:0] v);
        // per bit the OR of the AND terms as one reduction, so it maps as a tree, not a chain
        logic [31:0]       w;
        logic [QUEUES-1:0] t;
        for (int b = 0; b < 32; b++) begin
            for (int q = 0; q < QUEUES; q++) t[q] = oh[q] && v[q][b];
            w[b] = |t;
        end
        return w;
    endfunction

    // ====================================================================================
    // Input: I (registered beat), F (buffer write), E1/E2 (the frame's record)
    // ====================================================================================
    logic              i_v;
    logic [DATA_W-1:0] i_data;     // data: bytes past tkeep zeroed
    logic              i_last;
    logic [LOG_KW:0]   i_nbytes;   // data: bytes in the beat
    logic              i_user;
    logic [QW-1:0]     i_q;
    logic [63:0]       i_ts;
    logic [31:0]       i_hash;
    logic [2:0]        i_htype;
    logic [1:0]        i_port;
    logic [1:0]        i_flags;
    logic              rdy_q;

    assign s_axis_tready = rdy_q;

    // Bytes in a beat: tkeep is contiguous from bit 0 (docs/architecture.md), so the count is
    // the position of its last one: a one-hot encode (an OR per result bit), not an adder chain
    function automatic logic [LOG_KW:0] count_keep(input logic [KEEP_W-1:0] k);
        logic [LOG_KW:0] n;
        n = '0;
        for (int b = 0; b < KEEP_W; b++) begin
            if (k[b] && (b == KEEP_W - 1 || !k[(b + 1) % KEEP_W])) n = n | (LOG_KW+1)'(b + 1);
        end
        return n;
    endfunction

    always_ff @(posedge clk) begin
        if (rst) begin
            i_v   <= 1'b0;
            rdy_q <= 1'b0;
        end else begin
            i_v   <= s_axis_tvalid && rdy_q;
            rdy_q <= 1'b1;
        end
    end

    always_ff @(posedge clk) begin
        for (int b = 0; b < KW; b++) begin
            i_data[8*b +: 8] <= s_axis_tkeep[b] ? s_axis_tdata[8*b +: 8] : 8'd0;
        end
        i_last   <= s_axis_tlast;
        i_nbytes <= count_keep(s_axis_tkeep);
        i_user   <= s_axis_tuser;
        i_q      <= s_axis_tqueue;
        i_ts     <= s_axis_tts;
        i_hash   <= s_axis_thash;
        i_htype  <= s_axis_thtype;
        i_port   <= s_axis_tport;
        i_flags  <= s_axis_tflags;
    end

    // The buffer (BUF_BYTES): written at wp, read by the mover at rp
    logic [BP_W:0]     wp_q;        // next free beat
    logic [BP_W:0]     fwp_q;       // the current frame's first beat
    logic [BP_W:0]     rpf_q;       // beats before it are free (the mover's pointer, delayed)
    logic [BP_W:0]     used_q;      // wp - rpf of the cycle before
    logic              in_frame_q;  // a frame has started
    logic              fdrop_q;     // the current frame is being dropped
    logic [15:0]       flen_q;      // bytes of the current frame before this beat
    logic [NB_W-1:0]   fnb_q;       // beats of it before this beat (read only if it is kept, when
                                    // every beat is written: so the drop is not waited for)
    logic [$clog2(FRAMES):0] st_used_q;   // frame records queued or on their way
    logic              st_pop;

    logic              f_room;      // a beat may be written this cycle
    logic              f_sroom;     // a frame may start (its record has a place)
    logic              f_room_q;
    logic              f_sroom_q;
    logic              f_drop;      // this beat is not written
    logic              f_write;

    // Registered from counts a cycle old: the slack covers the writes since (a beat a cycle)
    assign f_room  = f_room_q;
    assign f_sroom = f_sroom_q;

    always_ff @(posedge clk) begin
        if (rst) begin
            f_room_q  <= 1'b0;
            f_sroom_q <= 1'b0;
        end else begin
            f_room_q  <= used_q <= (BP_W+1)'(DEPTH - 3);
            f_sroom_q <= 32'(st_used_q) < FRAMES - 5;
        end
    end
    assign f_drop  = in_frame_q ? (fdrop_q || !f_room) : !(f_room && f_sroom);
    assign f_write = i_v && !f_drop;

    // (the buffer's RAM is instantiated with the mover that reads it, at M2)

    // E1: the frame's end
    logic              e1_v;
    logic              e1_drop;
    logic [15:0]       e1_len;
    logic [NB_W-1:0]   e1_nb;
    logic [QW-1:0]     e1_q;
    logic [7:0]        e1_info;
    logic [31:0]       e1_hash;
    logic [63:0]       e1_ts;

    always_ff @(posedge clk) begin
        if (rst) begin
            wp_q       <= '0;
            fwp_q      <= '0;
            in_frame_q <= 1'b0;
            fdrop_q    <= 1'b0;
            flen_q     <= '0;
            fnb_q      <= '0;
            e1_v       <= 1'b0;
            used_q     <= '0;
        end else begin
            used_q <= wp_q - rpf_q;
            e1_v   <= i_v && i_last;
            if (i_v) begin
                if (i_last) begin
                    in_frame_q <= 1'b0;
                    fdrop_q    <= 1'b0;
                    flen_q     <= '0;
                    fnb_q      <= '0;
                    if (f_drop) begin
                        wp_q  <= fwp_q;                 // the frame's beats are given back
                    end else begin
                        wp_q  <= wp_q + 1'b1;
                        fwp_q <= wp_q + 1'b1;
                    end
                end else begin
                    in_frame_q <= 1'b1;
                    fdrop_q    <= f_drop;
                    flen_q     <= flen_q + 16'(KW);
                    fnb_q      <= fnb_q + 1'b1;
                    if (f_write) wp_q <= wp_q + 1'b1;
                end
            end
        end
    end

    always_ff @(posedge clk) begin
        e1_drop <= f_drop;
        e1_len  <= flen_q + 16'(i_nbytes);
        e1_nb   <= fnb_q + 1'b1;
        e1_q    <= i_q;
        e1_info <= {i_flags, i_port, i_user, i_htype};
        e1_hash <= i_hash;
        e1_ts   <= i_ts;
    end

    // E2: beats out, the frame record pushed (or the drop counted)
    localparam int ST_W = 16 + NB_W + R8_W + QW + 8 + 32 + 64;

    logic            e2_v;
    logic            e2_drop;
    logic            e2_push;      // e2_v && !e2_drop, a register (the record FIFOs' push)
    logic [ST_W-1:0] e2_rec;       // data
    logic [QW-1:0]   e2_q;         // data
    logic [31:0]     e2_lim;       // data: the queue's limit (CONS + ring size) at E1
    logic            st_valid;

    // The queue's limit is read where the queue's registers are, as it is at E1, and travels
    // with the record: no record queue's head selects a per-queue register when the record is
    // popped. The limit only grows while a queue runs (CONS moves forward), so one read at E1
    // is at most a later write behind the one at the pop and can only drop a record early,
    // never overwrite what the host has not consumed.
    // The read is split over two cycles, so no wide select follows one register: at I each
    // part of the table (NLO queues) is read by the queue's low bits, at E1 the queue's part
    // is picked. A limit written at the end of I or E1 (which I's read misses) is forwarded
    // from lim_new_q, which holds the last limit written (limit writes are two cycles apart
    // at least: axil_reg_if takes a write after the one before has its B).
    localparam int LQ_C = 4;                  // copies of the queue: 8 bits of the read each
    localparam int HI_W = QW / 3;             // queue bits picked at E1 (the rest read at I)
    localparam int LO_W = QW - HI_W;
    localparam int NHI  = 1 << HI_W;          // parts of the table
    localparam int NLO  = 1 << LO_W;          // queues a part
    localparam int HIW1 = HI_W > 0 ? HI_W : 1;
    logic [NHI-1:0][NLO-1:0][31:0] lim_tab;   // q_lim, zero past QUEUES
    logic [LQ_C-1:0][QW-1:0]   i_lq;          // data: the frame's queue at I (i_q's copies)
    logic [LQ_C-1:0][HIW1-1:0] e1_lq;         // data: and its part at E1
    logic [NHI-1:0][31:0]      e1_lp;         // data: each part's limit of the queue at I
    logic                      e1_lfw;        // data: lim_new_q is the queue's limit at E1

    always_comb begin
        for (int h = 0; h < NHI; h++) begin
            for (int l = 0; l < NLO; l++) begin
                lim_tab[h][l] = h * NLO + l < QUEUES ? q_lim[h * NLO + l] : '0;
            end
        end
    end

    // (one always_ff per copy: the copies of one vector in one block are one flip-flop cell)
    for (genvar k = 0; k < LQ_C; k++) begin : g_lq_copy
        (* keep *) always_ff @(posedge clk) i_lq[k] <= s_axis_tqueue;
        if (HI_W > 0) begin : g_hi
            (* keep *) always_ff @(posedge clk) e1_lq[k] <= i_lq[k][QW-1:LO_W];
        end else begin : g_no_hi
            assign e1_lq[k] = '0;
        end
    end

    always_ff @(posedge clk) begin
        // the queue's limit written at the end of E1, or at the end of I with none written
        // at the end of E1 (so lim_new_q still holds it)
        e1_lfw <= lim_v2_q ? lim_q2_q == i_q : lim_v3_q && lim_q3_q == i_q;
        for (int h = 0; h < NHI; h++) begin
            for (int k = 0; k < LQ_C; k++) begin
                e1_lp[h][8*k +: 8] <= lim_tab[h][i_lq[k][LO_W-1:0]][8*k +: 8];
            end
        end
        for (int k = 0; k < LQ_C; k++) begin
            e2_lim[8*k +: 8] <= e1_lfw ? lim_new_q[8*k +: 8] : e1_lp[e1_lq[k]][8*k +: 8];
        end
    end

    always_ff @(posedge clk) begin
        if (rst) begin
            e2_v    <= 1'b0;
            e2_push <= 1'b0;
        end else begin
            e2_v    <= e1_v;
            e2_push <= e1_v && !e1_drop;
        end
    end

    always_ff @(posedge clk) begin
        logic [16:0] rec_bytes;
        rec_bytes = 17'(e1_len) + 17'(HDR + 7);
        e2_drop <= e1_drop;
        e2_q    <= e1_q;
        e2_rec  <= {e1_len, e1_nb, R8_W'(rec_bytes >> 3), e1_q, e1_info, e1_hash, e1_ts};
    end

    always_ff @(posedge clk) begin
        if (rst) begin
            st_used_q <= '0;
        end else begin
            // a frame's place is taken at its first beat's cycle... counted here from E2 and
            // at the pop; f_sroom leaves room for the frames between (4)
            st_used_q <= st_used_q + ($clog2(FRAMES)+1)'(e2_push)
                                   - ($clog2(FRAMES)+1)'(st_pop);
        end
    end

    // The frame record FIFO: a block RAM read through its own output register (ram_sdp_reg),
    // which is D0's register. Its address is the head's all the time: records are popped two
    // cycles apart at least (d_gap_q), so the word of a pop in cycle t was read at t - 1 and
    // is on the RAM's output at t + 1. A record is poppable two cycles after its push (as a
    // sync_fifo's head): st_cnt_q counts the pushes two cycles old less the pops.
    localparam int FA_W = $clog2(FRAMES);
    logic            st_push;
    logic            st_push_q;
    logic [FA_W-1:0] st_wp_q;
    logic [FA_W-1:0] st_rp_q;
    logic [FA_W:0]   st_cnt_q;
    logic [ST_W-1:0] d0_rec;       // data: D0, the popped record (the RAM's output register)
    logic [31:0]     d0_lim;       // data: and its queue's limit (read at E1)

    assign st_push = e2_push;

    always_ff @(posedge clk) begin
        logic [FA_W:0] cnt;
        cnt = st_cnt_q + (FA_W+1)'(st_push_q) - (FA_W+1)'(st_pop);
        if (rst) begin
            st_push_q <= 1'b0;
            st_wp_q   <= '0;
            st_rp_q   <= '0;
            st_cnt_q  <= '0;
            st_valid  <= 1'b0;
        end else begin
            st_push_q <= st_push;
            if (st_push) st_wp_q <= st_wp_q + 1'b1;
            if (st_pop)  st_rp_q <= st_rp_q + 1'b1;
            st_cnt_q  <= cnt;
            // cnt != 0 by cases of the moves, so the pop passes one select and no adder
            st_valid  <= st_push_q || (st_pop ? st_cnt_q != (FA_W+1)'(1) : st_valid);
        end
    end

    ram_sdp_reg #(
        .ADDR_W (FA_W),
        .DATA_W (32 + ST_W)
    ) u_stat (
        .clk   (clk),
        .we    (st_push),
        .waddr (st_wp_q),
        .wdata ({e2_lim, e2_rec}),
        .raddr (st_rp_q),
        .rdata ({d0_lim, d0_rec})
    );

    // The records' queues again, in a FIFO of its own with the same pushes and pops (so the
    // same head): D1's per-queue reads select from copies of its small output register
    logic [QW-1:0] stq_data;
    logic          stq_valid;
    logic          stq_s_ready;

    sync_fifo #(
        .WIDTH  (QW),
        .DEPTH  (FRAMES),
        .BYPASS (1'b0)
    ) u_statq (
        .clk     (clk),
        .rst     (rst),
        .s_data  (e2_q),
        .s_valid (e2_push),
        .s_ready (stq_s_ready),
        .m_data  (stq_data),
        .m_valid (stq_valid),
        .m_ready (st_pop)
    );

    // ====================================================================================
    // Decision: D1 read, D2 sum, D3 compare and commit to PROD
    // ====================================================================================
    localparam int CMD_W = 1 + QW + 2 * NB_W + 2 * OFF_W + BASE_W + 32 + R8_W + 3 + 16 + 8 + 32 + 64;

    // A frame record's fields: {len, nb_in, rec8 (its record's 8-byte units), q, info, hash, ts}
    localparam int REC_Q   = 8 + 32 + 64;
    localparam int REC_NBO = REC_Q + QW;

    logic            cmd_room_q;   // the command FIFO can take what is in the decision
    logic            d_gap_q;      // a record was taken last cycle
    logic            d0_v;         // D0: the record registered off the FIFO's block RAM
    logic [QW-1:0]   d0_q;
    logic [2:0][QW-1:0] d0_qc;     // copies of d0_q: one per group of per-queue reads
    logic            d1_v;
    logic            d1_fwd;       // data: the record before is the same queue
    logic [ST_W-1:0] d1_rec;       // data
    logic [31:0]     d1_prod;      // data
    logic [31:0]     d1_limr;      // data: CONS + ring size - the record's bytes
    logic            d1_en;        // data
    logic [4:0]      d1_lsize;     // data: log2 ring size
    logic [BASE_W-1:0] d1_base;    // data
    logic            d2_v;
    logic [ST_W-1:0] d2_rec;       // data
    logic [31:0]     d2_prod;      // data: PROD before the record
    logic [31:0]     d2_sum;       // data: PROD after it
    logic [31:0]     d2_room;      // data: d1_limr - PROD: negative if it does not fit
    logic            d2_en;        // data
    logic [QUEUES-1:0] d2_qoh;     // D2 holds a record of queue q (PROD's enables)
    logic [OFF_W-1:0] d2_mask;     // data
    logic [BASE_W-1:0] d2_base;    // data
    logic [NB_W-1:0] d2_nst;       // data: the record's beats
    logic            d2_nst1;      // data: one beat
    logic [LGW:0]    d2_vl;        // data: granules of its last beat (1..G)
    logic [31:0]     l_prod_q;     // the last decided record's queue PROD after it
    logic            d3_v;
    logic            d3_ok;
    logic            d3_off;       // data: the queue is disabled
    logic [CMD_W-1:0] d3_cmd;      // data
    logic [QW-1:0]   d3_q;         // data
    logic [15:0]     d3_len;       // data

    assign st_pop = st_valid && !d_gap_q && cmd_room_q;

    always_ff @(posedge clk) begin
        if (rst) begin
            d_gap_q <= 1'b0;
            d0_v    <= 1'b0;
            d1_v    <= 1'b0;
            d2_v    <= 1'b0;
            d3_v    <= 1'b0;
        end else begin
            d_gap_q <= st_pop;
            d0_v    <= st_pop;
            d1_v    <= d0_v;
            d2_v    <= d1_v;
            d3_v    <= d2_v;
        end
        if (rst) d2_qoh <= '0;
        else for (int q = 0; q < QUEUES; q++) d2_qoh[q] <= d1_v && d1_rec[REC_Q +: QW] == QW'(q);
    end

    assign d0_q = d0_rec[REC_Q +: QW];

    always_ff @(posedge clk) begin
        // D1 (D0 is the RAM's output register, the record and its limit)
        d1_rec  <= d0_rec;
        // the record before (two cycles apart at least) is in D2 now: its PROD is written at
        // the end of this cycle, too late for the read; D2 takes it from l_prod_q
        d1_fwd  <= d2_v && d2_rec[REC_Q +: QW] == d0_q;
        d1_prod <= q_prod[d0_qc[0]];
        d1_limr <= d0_lim - (32'(d0_rec[REC_NBO +: R8_W]) << 3);
        d1_en   <= q_en[d0_qc[1]];
        d1_lsize <= q_lsize[d0_qc[1]];
        d1_base <= q_base[d0_qc[2]];
        // D2
        d2_rec  <= d1_rec;
        // (each sum formed for both PRODs and then selected: d1_fwd's select is after the
        // carry chains, not in front of them)
        d2_prod <= d1_fwd ? l_prod_q : d1_prod;
        d2_sum  <= d1_fwd ? l_prod_q + (32'(d1_rec[REC_NBO +: R8_W]) << 3)
                          : d1_prod + (32'(d1_rec[REC_NBO +: R8_W]) << 3);
        d2_room <= d1_fwd ? d1_limr - l_prod_q : d1_limr - d1_prod;
        d2_en   <= d1_en;
        for (int i = 0; i < OFF_W; i++) d2_mask[i] <= 5'(i) < d1_lsize;   // size - 1
        d2_base <= d1_base;
        begin
            logic [R8_W-1:0] r8;
            logic [NB_W-1:0] nst;
            r8 = d1_rec[REC_NBO +: R8_W];
            nst = NB_W'(((R8_W+1)'(r8) + (R8_W+1)'(G - 1)) >> LG);
            d2_nst  <= nst;
            d2_nst1 <= nst == NB_W'(1);
            d2_vl   <= (LGW+1)'(32'(r8 - 1'b1) & (G - 1)) + 1'b1;
        end
    end

    // Copies of the head's queue (kept apart), so each group of D1's 16-way reads has its own
    // select nets rather than one spread over all the per-queue registers
    (* keep *) always_ff @(posedge clk) begin
        for (int k = 0; k < 3; k++) d0_qc[k] <= stq_data;
    end

    // Fits if PROD + size <= CONS + ring size (as a signed 32-bit difference): the
    // difference is formed in D1 and D2, so the fit that enables the PROD registers is a
    // register's sign bit and the queue's enable
    logic        d2_fit;
    assign d2_fit  = d2_en && !d2_room[31];

    always_ff @(posedge clk) begin
        if (d2_v) l_prod_q <= d2_fit ? d2_sum : d2_prod;
    end

    always_ff @(posedge clk) begin
        logic [15:0]     len;
        logic [NB_W-1:0] nb_in;
        logic [R8_W-1:0] rec8;
        logic [OFF_W-1:0] off;
        logic [LGW-1:0]  rl;    // the record's first granule in its first word
        logic [LGW+1:0]  spanl; // rl + the granules of its last beat
        logic            wxl;
        logic [QW-1:0]   q;
        logic [7:0]      info;
        logic [31:0]     hash;
        logic [63:0]     ts;
        {len, nb_in, rec8, q, info, hash, ts} = d2_rec;
        // the record's beats (each written at the record's lane, across two ring words): d2_nst
        // (<= the buffer's beats + 2, a stored frame fits the buffer) and the granules of its
        // last beat come from D2, so only the lane's sums are left here
        off   = OFF_W'(d2_prod) & d2_mask;
        rl    = LGW'(off[LOG_KW-1:0] >> 3);
        spanl = (LGW+2)'(rl) + (LGW+2)'(d2_vl);
        wxl   = spanl > (LGW+2)'(G);
        d3_ok  <= d2_fit;
        d3_off <= !d2_en;
        d3_q   <= q;
        d3_len <= len;
        d3_cmd <= {!d2_fit, q, nb_in, d2_nst, off, d2_mask, d2_base, d2_sum, rec8, wxl,
                   spanl >= (LGW+2)'(G),
                   (off[LOG_BB-1:LOG_KW] == '0 && rl == '0)
                   || (&off[LOG_BB-1:LOG_KW] && (d2_nst1 ? wxl : rl != '0)),
                   len, info, hash, ts};
    end

    always_ff @(posedge clk) begin
        if (rst) begin
            for (int q = 0; q < QUEUES; q++) q_prod[q] <= '0;
        end else begin
            for (int q = 0; q < QUEUES; q++) if (d2_qoh[q] && d2_fit) q_prod[q] <= d2_sum;
        end
    end

    // The command FIFO: the mover's records and skips, in frame order
    logic             cmd_valid;
    logic [CMD_W-1:0] cmd_data;
    logic             cmd_pop;
    logic             cmd_s_ready;
    // The count of what is in the FIFO or in D1..D3 is kept a cycle late and stepped by the
    // pops registered (st_pop's is d_gap_q), so the mover's pop drives one register and no
    // adder; the room flag is registered from the stepped count (the count of the cycle
    // before, as it was)
    logic [$clog2(CD):0] cmd_used_q;   // the count a cycle before
    logic                cmd_pop_q;

    prefetch_fifo #(
        .WIDTH   (CMD_W),
        .DEPTH   (CD),
        .SLICE_W (64)
    ) u_cmd (
        .clk     (clk),
        .rst     (rst),
        .s_data  (d3_cmd),
        .s_valid (d3_v),
        .s_ready (cmd_s_ready),
        .m_data  (cmd_data),
        .m_valid (cmd_valid),
        .m_ready (cmd_pop)
    );

    always_ff @(posedge clk) begin
        logic [$clog2(CD):0] used;
        used = cmd_used_q + ($clog2(CD)+1)'(d_gap_q) - ($clog2(CD)+1)'(cmd_pop_q);
        if (rst) begin
            cmd_pop_q  <= 1'b0;
            cmd_used_q <= '0;
            cmd_room_q <= 1'b0;
        end else begin
            cmd_pop_q  <= cmd_pop;
            cmd_used_q <= used;
            // used < CD - 2: the late count's compares, selected by its step (no adder)
            cmd_room_q <= (d_gap_q && !cmd_pop_q) ? 32'(cmd_used_q) < CD - 3
                        : (cmd_pop_q && !d_gap_q) ? 32'(cmd_used_q) < CD - 1
                        : 32'(cmd_used_q) < CD - 2;
        end
    end

    // ====================================================================================
    // Mover: M0 plans a record's beat (or a timeout flush); M1 (P) keeps each queue's gather
    // state and decides flushes; M2, M2b the buffer's word; M3 the record's beat composed;
    // R rotated to the record's 8-byte lane in the ring; S written into the queue's staging
    // blocks (granule enables; a record beat at lane rl spans ring words w and w + 1, which
    // are in the two banks), and a decided flush queued for the reader.
    // ====================================================================================
    logic              c_skip;
    logic [QW-1:0]     c_q;
    logic [NB_W-1:0]   c_nb_in;
    logic [NB_W-1:0]   c_nst;
    logic [OFF_W-1:0]  c_off;
    logic [OFF_W-1:0]  c_mask;
    logic [BASE_W-1:0] c_base;
    logic [31:0]       c_end;
    logic [R8_W-1:0]   c_rec8;
    logic              c_wxl;        // the record's last beat spills into word w + 1
    logic              c_bendl;      // its last beat reaches its word's end
    logic              c_nb0;        // its first beat opens a block
    logic [15:0]       c_len;
    logic [7:0]        c_info;
    logic [31:0]       c_hash;
    logic [63:0]       c_ts;
    assign {c_skip, c_q, c_nb_in, c_nst, c_off, c_mask, c_base, c_end, c_rec8, c_wxl, c_bendl,
            c_nb0, c_len, c_info, c_hash, c_ts} = cmd_data;

    // The record being moved
    logic              m_v_q;
    logic [QW-1:0]     m_q_q;
    logic [QUEUES-1:0] m_qoh_q;      // m_q_q one-hot (P's one-hot selects and enables)
    logic [NB_W-1:0]   m_left_q;     // record beats left including this one
    logic              m_lastb_q;    // this beat is the record's last
    logic [NB_W-1:0]   m_j_q;        // record beat index
    logic [NB_W-1:0]   m_inl_q;      // in-beats left to read
    logic [OFF_W-1:0]  m_off_q;      // ring offset of word w (the beat's first byte's word)
    logic [OFF_W-1:0]  m_noff_q;     // of word w + 1
    logic [OFF_W-1:0]  m_mask_q;
    logic [BASE_W-1:0] m_base_q;
    logic [31:0]       m_end_q;      // PROD after the record
    logic [LGW-1:0]    m_rl_q;       // the record's first granule in word w
    logic [LGW:0]      m_vl_q;       // granules of the record's last beat (1..G)
    logic              m_wxl_q;      // the record's last beat spills into word w + 1
    logic              m_bendl_q;    // the record's last beat reaches its word's end
    logic              m_newblk_q;   // this beat opens a block: it starts one (lane 0 of its first
                                     // word) or spills into it; the block SB before must be read
    logic              m_free_q;     // no timeout flush waits and the flush FIFO has room
    logic              m_stall_q;    // this beat opens a block whose slot is not read out yet
    logic [127:0]      m_hdr_q;
    logic [BP_W:0]     rp_q;         // the buffer's read pointer

    // Timeout flush requests (picked below) and the flush FIFO's credits
    logic              to_v_q;
    logic              to_v_d;
    logic [QW-1:0]     to_q_q;
    logic [QW-1:0]     to_q_d;
    logic [QUEUES-1:0] to_oh_q;      // to_q_q one-hot
    logic              fl_room_q;
    logic [$clog2(FLD):0] fl_used_q;  // the flush FIFO's credits taken, a cycle before
    logic              fl_ok;        // the credits taken now leave room (<= FLD - 4)
    logic              req_any_q;    // a queue's flush is requested
    logic [QW-1:0]     req_qi_q;     // the lowest such queue (when any)
    logic [QUEUES-1:0] req_oh_q;     // and one-hot
    logic [2:0]        to_cd_q;      // after a take: P's update reaches the requests
    logic [SB-1:0][QUEUES-1:0] pend_nz_q;   // per staging slot, queue: a flush not yet read
    // The block a queue opens next is always the one after the last it wrote (slot + 1):
    // its pending flag is looked up per queue ahead of time, so M0 reads registers only
    logic [QUEUES-1:0][SBW-1:0] ls_q;       // the slot of the last word a queue's beat wrote
    logic [QUEUES-1:0]         np_q;        // that slot + 1 has a flush not yet read

    logic [LGW:0]   m_vj;       // granules the beat carries
    logic [LGW+1:0] m_span;     // rl + vj: > G spills into word w + 1
    logic m_wx;        // the beat writes word w + 1
    logic m_bidx_last; // word w is its block's last
    logic m_bend;      // the beat fills word w's block to its end: the block is flushed
    logic m_go;        // a beat is planned this cycle
    logic to_take;     // a timeout flush takes M0's slot this cycle
    logic m_fill;      // the mover is free or frees itself this cycle
    logic m_rd;        // the beat reads an in-beat
    logic m_hdr_beat;  // a beat of the header alone (ALIGN < 16)
    logic [G-1:0] m_en0;   // granule enables of word w
    logic [G-1:0] m_en1;   // of word w + 1

    if (HB == 0) begin : g_no_hdr_beat
        assign m_hdr_beat = 1'b0;
    end else begin : g_hdr_beat
        assign m_hdr_beat = m_j_q < NB_W'(HB);
    end

    assign m_vj        = m_lastb_q ? m_vl_q : (LGW+1)'(G);
    assign m_span      = (LGW+2)'(m_rl_q) + (LGW+2)'(m_vj);
    assign m_wx        = m_lastb_q ? m_wxl_q : m_rl_q != '0;
    assign m_bidx_last = &m_off_q[LOG_BB-1:LOG_KW];
    assign m_bend      = m_bidx_last && (!m_lastb_q || m_bendl_q);
    assign to_take     = to_v_q && fl_room_q;
    assign m_go        = m_v_q && m_free_q && !m_stall_q;
    assign m_fill      = !m_v_q || (m_go && m_lastb_q);
    assign cmd_pop     = cmd_valid && m_fill;
    assign m_rd        = m_go && !m_hdr_beat && m_inl_q != '0;

    always_comb begin
        for (int g = 0; g < G; g++) begin
            m_en0[g] = (LGW+2)'(g) >= (LGW+2)'(m_rl_q) && (LGW+2)'(g) < m_span;
            m_en1[g] = (LGW+2)'(g + G) < m_span;
        end
    end

    // skips: a dropped frame's beats are given back (one cycle per skip, at the head)
    // (the read pointer passes them a cycle later, from registers: the mover is empty in the
    // cycle after a skip, so no beat reads before the pointer has moved)
    logic skip_now;
    logic skip_q;
    logic [BP_W:0]   skip_nb_q;
    assign skip_now = cmd_pop && c_skip;

    always_ff @(posedge clk) begin
        if (rst) skip_q <= 1'b0;
        else     skip_q <= skip_now;
        skip_nb_q <= (BP_W+1)'(c_nb_in);
    end

    // M0's gating state is registered, so a beat's go is one LUT of registers; the registers
    // the mover loads or steps take their enables from copies of it, one set per group of
    // fields (MCP), so no enable net spans all of them, and one for the stall's next state (its
    // input stays beside it, not on the shared m_fill net, which reaches the command FIFO's pop
    // and the flush logic across the die). The fields are loaded whenever the mover fills, a
    // command or not: without one m_v_q stays 0 and they are not read.
    localparam int MCP = 7;
    localparam int MST = 6;      // the stall's copy
    logic           m_v_d;
    logic           m_lastb_d;
    logic           m_free_d;
    logic           m_stall_d;
    logic           m_newblk_d;
    logic           m_nbf;       // the beat after this one opens a block
    logic [MCP-1:0] m_v_c;
    logic [MCP-1:0] m_lastb_c;
    logic [MCP-1:0] m_free_c;
    logic [MCP-1:0] m_stall_c;
    logic [MCP-1:0] m_go_c;
    logic [MCP-1:0] m_fill_c;

    assign m_nbf = (m_noff_q[LOG_BB-1:LOG_KW] == '0 && m_rl_q == '0)
                   || (&m_noff_q[LOG_BB-1:LOG_KW] && (m_left_q == NB_W'(2) ? m_wxl_q : m_rl_q != '0));

    always_comb begin
        m_v_d      = m_fill ? cmd_valid && !c_skip : m_v_q;
        m_lastb_d  = m_fill ? c_nst == NB_W'(1) : m_go ? m_left_q == NB_W'(2) : m_lastb_q;
        m_newblk_d = m_fill_c[MST] ? c_nb0 : m_go_c[MST] ? m_nbf : m_newblk_q;
        // the pending flag of the slot the beat opens: the head's queue's for a new record
        m_stall_d  = m_newblk_d && (m_fill_c[MST] ? np_q[c_q] : np_q[m_q_q]);
        // to_v_q and fl_room_q as they are next cycle
        m_free_d   = !(!to_take && (to_v_q || (to_cd_q == '0 && req_any_q)))
                     && fl_ok;
    end

    always_ff @(posedge clk) begin
        if (rst) begin
            m_v_q     <= 1'b0;
            m_free_q  <= 1'b0;
            m_stall_q <= 1'b0;
            rp_q      <= '0;
        end else begin
            rp_q      <= rp_q + (BP_W+1)'(m_rd) + (skip_q ? skip_nb_q : '0);
            m_v_q     <= m_v_d;
            m_free_q  <= m_free_d;
            m_stall_q <= m_stall_d;
        end
    end

    // One always_ff per copy: the copies of one vector in one block are one flip-flop cell,
    // which synthesis narrows to one bit whatever the keep.
    for (genvar k = 0; k < MCP; k++) begin : g_m_copy
        (* keep *) always_ff @(posedge clk) begin
            if (rst) begin
                m_v_c[k]     <= 1'b0;
                m_free_c[k]  <= 1'b0;
                m_stall_c[k] <= 1'b0;
            end else begin
                m_v_c[k]     <= m_v_d;
                m_free_c[k]  <= m_free_d;
                m_stall_c[k] <= m_stall_d;
            end
            m_lastb_c[k] <= m_lastb_d;
        end
    end

    assign m_go_c   = m_v_c & m_free_c & ~m_stall_c;
    assign m_fill_c = ~m_v_c | (m_go_c & m_lastb_c);

    always_ff @(posedge clk) begin
        if (rst) begin
            for (int q = 0; q < QUEUES; q++) ls_q[q] <= SBW'(SB - 1);
            np_q <= '0;
        end else begin
            for (int q = 0; q < QUEUES; q++) begin
                if (m_go && m_qoh_q[q]) begin
                    ls_q[q] <= m_wx ? m_noff_q[LOG_BB+SBW-1:LOG_BB] : m_off_q[LOG_BB+SBW-1:LOG_BB];
                end
            end
            for (int q = 0; q < QUEUES; q++) np_q[q] <= pend_nz_q[ls_q[q] + 1'b1][q];
        end
    end

    always_ff @(posedge clk) begin
        logic [OFF_W-1:0] w;   // the record's first word
        w = c_off & ~OFF_W'(KW - 1);
        m_lastb_q <= m_lastb_d;
        // the header (read with the record's first beat)
        if (m_fill_c[0]) m_hdr_q[63:0]   <= {c_hash, c_info, 8'(c_q), c_len};
        if (m_fill_c[1]) m_hdr_q[127:64] <= c_ts;
        // the record's constants
        if (m_fill_c[2]) begin
            m_q_q     <= c_q;
            for (int q = 0; q < QUEUES; q++) m_qoh_q[q] <= c_q == QW'(q);
            m_base_q  <= c_base;
            m_wxl_q   <= c_wxl;
            m_bendl_q <= c_bendl;
            m_rl_q    <= LGW'(c_off[LOG_KW-1:0] >> 3);
            m_vl_q    <= (LGW+1)'(32'(c_rec8 - 1'b1) & (G - 1)) + 1'b1;
        end
        if (m_fill_c[3]) begin
            m_end_q   <= c_end;
            m_mask_q  <= c_mask;
        end
        // the beat's words
        if (m_fill_c[4]) begin
            m_off_q   <= w;
            m_noff_q  <= (w + OFF_W'(KW)) & c_mask;
        end else if (m_go_c[4]) begin
            m_off_q   <= m_noff_q;
            m_noff_q  <= (m_noff_q + OFF_W'(KW)) & m_mask_q;
        end
        // the beat's counts
        if (m_fill_c[5]) begin
            m_newblk_q <= c_nb0;
            m_left_q  <= c_nst;
            m_j_q     <= '0;
            m_inl_q   <= c_nb_in;
        end else if (m_go_c[5]) begin
            m_newblk_q <= m_nbf;
            m_left_q  <= m_left_q - 1'b1;
            m_j_q     <= m_j_q + 1'b1;
            if (!m_hdr_beat && m_inl_q != '0) m_inl_q <= m_inl_q - 1'b1;
        end
    end

    // M1 (P): the op's fields
    logic              m1_v;         // a record beat
    logic              m1_to;        // a timeout flush of queue m1_q
    logic [QW-1:0]     m1_q;
    logic [QUEUES-1:0] m1_wq;        // m1_v for queue q
    logic [QUEUES-1:0] m1_wlq;       // and m1_last (t_re's enables)
    logic [QUEUES-1:0] m1_tq;        // m1_to for queue q
    logic              m1_rd;
    logic [NB_W-1:0]   m1_j;
    logic [127:0]      m1_hdr;
    logic [BP_W-1:0]   m1_addr;
    logic              m1_last;      // the record's last beat
    logic              m1_bend;
    logic              m1_wx;
    logic [31:0]       m1_end;
    logic [BLK_W-1:0]  m1_blk0;      // word w's block: its address >> LOG_BB
    logic [BLK_W-1:0]  m1_blk1;      // word w + 1's
    logic [SA_W-1:0]   m1_sa0;       // their staging words
    logic [SA_W-1:0]   m1_sa1;
    logic [G-1:0]      m1_en0;
    logic [G-1:0]      m1_en1;
    logic [LGW-1:0]    m1_rl;

    always_ff @(posedge clk) begin
        if (rst) begin
            m1_v  <= 1'b0;
            m1_to <= 1'b0;
        end else begin
            m1_v  <= m_go;
            m1_to <= to_take;
        end
    end

    always_ff @(posedge clk) begin
        m1_q    <= to_take ? to_q_q : m_q_q;
        m1_rd   <= m_rd;
        m1_j    <= m_j_q;
        m1_hdr  <= m_hdr_q;
        m1_addr <= rp_q[BP_W-1:0];
        m1_last <= m_lastb_q;
        m1_bend <= m_bend;
        m1_wx   <= m_wx;
        m1_end  <= m_end_q;
        m1_blk0 <= BLK_W'(({m_base_q, 12'd0} | ADDR_W'(m_off_q)) >> LOG_BB);
        m1_blk1 <= BLK_W'(({m_base_q, 12'd0} | ADDR_W'(m_noff_q)) >> LOG_BB);
        m1_sa0  <= {m_q_q, m_off_q[LOG_BB+SBW-1:LOG_KW]};
        m1_sa1  <= {m_q_q, m_noff_q[LOG_BB+SBW-1:LOG_KW]};
        m1_en0  <= m_en0;
        m1_en1  <= m_en1;
        m1_rl   <= m_rl_q;
    end

    // P's per-queue write enables decoded a stage ahead: each queue's state takes a register
    always_ff @(posedge clk) begin
        if (rst) begin
            m1_wq  <= '0;
            m1_wlq <= '0;
            m1_tq  <= '0;
        end else begin
            for (int q = 0; q < QUEUES; q++) begin
                m1_wq[q]  <= m_go && m_qoh_q[q];
                m1_wlq[q] <= m_go && m_qoh_q[q] && m_lastb_q;
                m1_tq[q]  <= to_take && to_oh_q[q];
            end
        end
    end

    // P: per queue, what is staged but not flushed. t_fpg: the first granule of the current
    // block not yet flushed; t_unc: a record has ended since the last flush (its end t_re,
    // in block t_blk), so a flush is owed within FLUSH_CYCLES. Written in this stage; read
    // from M0 with the update of the op before forwarded, so consecutive ops see each
    // other's updates.
    logic [QUEUES-1:0]             t_unc;
    logic [QUEUES-1:0][BGW-1:0]    t_fpg;
    logic [QUEUES-1:0][31:0]       t_re;
    logic [QUEUES-1:0][BLK_W-1:0]  t_blk;

    // P's read of its queue's state starts in M0: the state is split into groups of GS queues;
    // M0 reads each group at the low bits of its op's queue (a GS:1 select per group,
    // registered), P picks the group by the high bits and forwards the update of the op
    // before (in P a cycle earlier, written after M0's read) when it is the same queue. So P
    // reads registers next to it, not the 16 queues' state spread over the die.
    localparam int QN   = 1 << QW;                  // queue indices (QUEUES rounded up)
    localparam int GLW  = QW >= 2 ? 2 : QW;         // a queue's index in its group: low bits
    localparam int GS   = 1 << GLW;                 // queues a group
    localparam int NGR  = QN / GS;                  // groups
    localparam int GHW  = NGR > 1 ? $clog2(NGR) : 1;
    localparam int TS_W = 1 + BGW + 32 + BLK_W;     // a queue's state: {unc, fpg, re, blk}

    // The queue of the op in M0 (to_v_q holds off record beats, so a timeout's when one
    // waits, else the record's), registered from the values of the cycle before, one copy
    // per group (kept apart) and one for the forward's compare
    logic [QW-1:0]             m_q_d;
    logic [QW-1:0]             m0q_d;
    logic [NGR:0][QW-1:0]      m0q_c;
    logic [GHW-1:0]            m1_gh;       // P's op's group
    logic                      m1_fwd;      // P's op is the queue of the op before in P
    logic [NGR-1:0][TS_W-1:0]  p_grp;       // per group: its queue at the op's low bits
    logic [TS_W-1:0]           p_nxt;       // the state after P's op (its queue's)
    logic [TS_W-1:0]           p_cur;       // the state P's op sees
    logic                      p_unc;
    logic [BGW-1:0]            p_fpg;
    logic [31:0]               p_re;
    logic [BLK_W-1:0]          p_blk;

    assign m_q_d = m_fill ? c_q : m_q_q;
    assign m0q_d = to_v_d ? to_q_d : m_q_d;

    (* keep *) always_ff @(posedge clk) begin
        for (int k = 0; k <= NGR; k++) m0q_c[k] <= m0q_d;
    end

    always_ff @(posedge clk) begin
        logic [QN-1:0][TS_W-1:0] st;
        for (int q = 0; q < QN; q++) begin
            st[q] = q < QUEUES ? {t_unc[q], t_fpg[q], t_re[q], t_blk[q]} : '0;
        end
        for (int g = 0; g < NGR; g++) p_grp[g] <= st[g * GS + 32'(m0q_c[g][GLW-1:0])];
        m1_gh  <= GHW'(m0q_c[NGR] >> GLW);
        m1_fwd <= (m1_v || m1_to) && m1_q == m0q_c[NGR];
        p_nxt  <= {p_unc, p_fpg, p_re, p_blk};
    end

    assign p_cur = m1_fwd ? p_nxt : p_grp[m1_gh];

    // P's op's update of its queue's state (the per-queue registers below make the same
    // update from their own values)
    always_comb begin
        logic              unc;
        logic [BGW-1:0]    fpg;
        logic [31:0]       re;
        logic [BLK_W-1:0]  blk;
        {unc, fpg, re, blk} = p_cur;
        p_unc = unc;
        p_fpg = fpg;
        p_re  = re;
        p_blk = blk;
        if (m1_v) begin
            p_blk = m1_wx ? m1_blk1 : m1_blk0;
            if (m1_bend) begin
                p_fpg = '0;
                p_unc = m1_last && m1_wx;
            end else if (m1_last) begin
                p_unc = 1'b1;
            end
            if (m1_last) p_re = m1_end;
        end else if (m1_to && unc) begin
            p_fpg = re[LOG_BB-1:3];
            p_unc = 1'b0;
        end
    end

    // The flush decided in P: {queue, first granule, end granule (exclusive, 1..BLKG),
    // block, commit, PROD}
    localparam int FR_W = QW + BGW + (BGW + 1) + BLK_W + 1 + 32;
    logic              m2_fv;
    logic [FR_W-1:0]   m2_fl;

    // The flush record is loaded every cycle (m2_fv says whether it holds one), its fields
    // selected by m1_v, a register: no enable waits for the owed test across the wide record.
    // The per-queue updates test their own queue's flag, not the 16-way read.
    always_ff @(posedge clk) begin
        logic              unc;
        logic [BGW-1:0]    fpg;
        logic [31:0]       re;
        logic [BLK_W-1:0]  blk;
        logic              exact;    // the record ends at the block's end
        {unc, fpg, re, blk} = p_cur;
        exact = m1_last && !m1_wx;
        if (m1_v) begin
            // word w's block is full: [fpg, its end), committing the last record wholly in it
            m2_fl <= {m1_q, fpg, (BGW+1)'(BLKG), m1_blk0, exact || unc, exact ? m1_end : re};
        end else begin
            // owed: [fpg, the last record's end) of the block it ended in
            m2_fl <= {m1_q, fpg, (BGW+1)'(re[LOG_BB-1:3]), blk, 1'b1, re};
        end
        if (rst) m2_fv <= 1'b0;
        else     m2_fv <= m1_v ? m1_bend : m1_to && unc;
    end

    always_ff @(posedge clk) begin
        if (rst) begin
            t_unc <= '0;
            for (int q = 0; q < QUEUES; q++) t_fpg[q] <= '0;
        end else begin
            for (int q = 0; q < QUEUES; q++) begin
                if (m1_wq[q]) begin
                    t_blk[q] <= m1_wx ? m1_blk1 : m1_blk0;
                    if (m1_bend) begin
                        t_fpg[q] <= '0;
                        t_unc[q] <= m1_last && m1_wx;
                    end else if (m1_last) begin
                        t_unc[q] <= 1'b1;
                    end
                end else if (m1_tq[q] && t_unc[q]) begin
                    t_fpg[q] <= t_re[q][LOG_BB-1:3];
                    t_unc[q] <= 1'b0;
                end
            end
        end
    end

    // (a record's end: its enable a register of its own, m1_wlq implies m1_wq)
    always_ff @(posedge clk) begin
        for (int q = 0; q < QUEUES; q++) if (m1_wlq[q]) t_re[q] <= m1_end;
    end

    // Age of each queue's owed flush; a request once FLUSH_CYCLES old, or at once when the
    // input has been quiet IDLE_GAP cycles and the mover has nothing
    logic [QUEUES-1:0][AGE_W-1:0] age_q;
    logic [QUEUES-1:0] age_max_q;   // age_q == FLUSH_CYCLES, a flag: the requests compare nothing
    logic [QT_W-1:0]   quiet_q;
    logic              idle_q;

    // The requests: a flag per queue, registered from registers (t_unc, idle_q, age_max_q);
    // their lowest queue is encoded from the flags a cycle later (a priority encode left to
    // the LUT mapping, a tree of a few levels, not a carry chain (x & -x) followed by an OR
    // tree; the one-hot a prefix OR), so the encode starts at registers and M0's queue select
    // reads registers. The cycle this adds is nothing beside the timeouts; after a take,
    // to_cd_q's 5 cycles still outlast P's update reaching the flags (2) and req_any_q (1).
    logic [QUEUES-1:0] req_q;
    logic              req_clr;
    assign req_clr = to_take || to_cd_q != '0;

    always_ff @(posedge clk) begin
        if (rst) begin
            req_q <= '0;
        end else begin
            for (int q = 0; q < QUEUES; q++) req_q[q] <= t_unc[q] && (idle_q || age_max_q[q]);
        end
    end

    always_ff @(posedge clk) begin
        logic [QW-1:0] qi;
        logic          seen;
        qi = '0;
        for (int q = QUEUES - 1; q >= 0; q--) if (req_q[q]) qi = QW'(q);
        req_qi_q <= qi;
        seen = 1'b0;
        for (int q = 0; q < QUEUES; q++) begin
            req_oh_q[q] <= req_q[q] && !seen;
            seen        = seen || req_q[q];
        end
    end

    always_ff @(posedge clk) begin
        if (rst) begin
            quiet_q <= '0;
            idle_q  <= 1'b0;
            req_any_q <= 1'b0;
            to_v_q  <= 1'b0;
            to_cd_q <= '0;
            for (int q = 0; q < QUEUES; q++) age_q[q] <= '0;
            age_max_q <= '0;
        end else begin
            quiet_q <= i_v ? '0 : (quiet_q == QT_W'(IDLE_GAP)) ? quiet_q : quiet_q + 1'b1;
            idle_q  <= quiet_q == QT_W'(IDLE_GAP) && !m_v_q && !cmd_valid;
            for (int q = 0; q < QUEUES; q++) begin
                if (!t_unc[q]) age_q[q] <= '0;
                else if (age_q[q] != AGE_W'(FLUSH_CYCLES)) age_q[q] <= age_q[q] + 1'b1;
                age_max_q[q] <= t_unc[q] && (age_max_q[q] || age_q[q] == AGE_W'(FLUSH_CYCLES - 1));
            end
            if (to_take) begin
                to_cd_q <= 3'd5;
            end else if (to_cd_q != '0) begin
                to_cd_q <= to_cd_q - 1'b1;
            end
            req_any_q <= !req_clr && |req_q;
            to_v_q <= to_v_d;
        end
    end

    // A timeout request waits from the cycle after one is seen until it is taken (none for
    // the cycles to_cd_q counts after a take); next cycle's, for M0's queue
    always_comb begin
        if (to_take)             to_v_d = 1'b0;
        else if (to_cd_q != '0)  to_v_d = to_v_q;
        else                     to_v_d = to_v_q || req_any_q;
    end

    // The lowest requesting queue, taken while none waits
    assign to_q_d = to_v_q ? to_q_q : req_qi_q;

    always_ff @(posedge clk) begin
        to_q_q <= to_q_d;
        if (!to_v_q) to_oh_q <= req_oh_q;
    end

    // M2, M2b: the buffer's word; the flush's beats and lanes. The staging write travels as
    // {word w, word w + 1, their granule enables}.
    localparam int SW_W = 2 * SA_W - 1 + 2 * G;   // word w + 1's bank is the other: no bit
    // A flush as the reader takes it: {queue, slot, first beat, beats - 1, first granule in
    // the first beat, last granule in the last beat, burst address, commit, PROD, one beat}
    localparam int FL_W = QW + SBW + 2 * BBW + 2 * LGW + ADDR_W + 1 + 32 + 1;
    logic              m2_v;
    logic              m2_rd;
    logic [NB_W-1:0]   m2_j;
    logic [127:0]      m2_hdr;
    logic [SW_W-1:0]   m2_sw;
    logic [LGW-1:0]    m2_rl;
    logic              m2b_v;
    logic              m2b_rd;
    logic [NB_W-1:0]   m2b_j;
    logic [127:0]      m2b_hdr;
    logic [DATA_W-1:0] m2b_word;
    logic [SW_W-1:0]   m2b_sw;
    logic [LGW-1:0]    m2b_rl;
    logic              m2b_fv;
    logic [FL_W-1:0]   m2b_fl;

    // The buffer's RAM: the mover's read address at M1, the RAM's read at M2, its own output
    // register at M2b, so the word leaves the RAM from a register next to it
    ram_sdp_reg #(
        .ADDR_W (BP_W),
        .DATA_W (DATA_W)
    ) u_buf (
        .clk   (clk),
        .we    (f_write),
        .waddr (wp_q[BP_W-1:0]),
        .wdata (i_data),
        .raddr (m1_addr),
        .rdata (m2b_word)
    );
    logic              m3_v;
    logic [DATA_W-1:0] m3_beat;
    logic [SW_W-1:0]   m3_sw;
    logic [LGW-1:0]    m3_rl;
    logic              m3_fv;
    logic [FL_W-1:0]   m3_fl;

    always_ff @(posedge clk) begin
        if (rst) begin
            m2_v   <= 1'b0;
            m2b_v  <= 1'b0;
            m3_v   <= 1'b0;
            m2b_fv <= 1'b0;
            m3_fv  <= 1'b0;
        end else begin
            m2_v   <= m1_v;
            m2b_v  <= m2_v;
            m3_v   <= m2b_v;
            m2b_fv <= m2_fv;
            m3_fv  <= m2b_fv;
        end
    end

    always_ff @(posedge clk) begin
        logic [QW-1:0]    q;
        logic [BGW-1:0]   g0;
        logic [BGW:0]     g1;
        logic [BGW-1:0]   gl;
        logic [BLK_W-1:0] blk;
        logic             cv;
        logic [31:0]      cp;
        logic [BBW-1:0]   fb;
        logic [ADDR_W-1:0] a;
        {q, g0, g1, blk, cv, cp} = m2_fl;
        gl = BGW'(g1 - 1'b1);
        fb = BBW'(g0 >> LG);
        a  = {blk, LOG_BB'(0)} | ADDR_W'(32'(fb) << LOG_KW);
        m2_rd    <= m1_rd;
        m2_j     <= m1_j;
        m2_hdr   <= m1_hdr;
        m2_sw    <= {m1_sa0, m1_sa1[SA_W-1:1], m1_en0, m1_en1};
        m2_rl    <= m1_rl;
        m2b_rd   <= m2_rd;
        m2b_j    <= m2_j;
        m2b_hdr  <= m2_hdr;
        m2b_sw   <= m2_sw;
        m2b_rl   <= m2_rl;
        m2b_fl   <= {q, blk[SBW-1:0], fb, BBW'(gl >> LG) - fb, LGW'(g0 & BGW'(G - 1)),
                     LGW'(gl & BGW'(G - 1)), a, cv, cp, BBW'(gl >> LG) == fb};
        m3_sw    <= m2b_sw;
        m3_rl    <= m2b_rl;
        m3_fl    <= m2b_fl;
    end

    if (SH != 0) begin : g_shift
        // ALIGN > 16: out = in's low KW-16 bytes above the carry (the header, then the top 16
        // bytes of the in-beat before). The word's qualifiers come from copies registered at
        // M2, one per 64 bits (kept apart), so each drives a granule's LUTs, not the beat's;
        // m3_beat loads every cycle (R reads it only with m3_v), the carry only with a beat.
        localparam int NCP = DATA_W / 64;
        logic [127:0]      carry_q;
        logic [NCP-1:0]    m2b_rdc;   // m2_rd: the word is an in-beat (else zeros)
        logic [1:0]        m2b_j0c;   // m2_j == 0: the record's first beat (the header)
        logic [1:0]        m2b_vc;    // m2_v: a beat (the carry's enables)
        logic [DATA_W-1:0] in_w;

        // (one always_ff per copy, as M0's copies)
        for (genvar c = 0; c < NCP; c++) begin : g_rd_copy
            (* keep *) always_ff @(posedge clk) m2b_rdc[c] <= m2_rd;
        end
        for (genvar c = 0; c < 2; c++) begin : g_hv_copy
            (* keep *) always_ff @(posedge clk) begin
                m2b_j0c[c] <= m2_j == '0;
                if (rst) m2b_vc[c] <= 1'b0;
                else     m2b_vc[c] <= m2_v;
            end
        end

        always_comb begin
            for (int c = 0; c < NCP; c++) in_w[64*c +: 64] = m2b_rdc[c] ? m2b_word[64*c +: 64] : '0;
        end

        always_ff @(posedge clk) begin
            m3_beat <= {in_w[DATA_W-129:0], m2b_j0c[1] ? m2b_hdr[127:64] : carry_q[127:64],
                        m2b_j0c[0] ? m2b_hdr[63:0] : carry_q[63:0]};
            if (m2b_vc[0]) carry_q[63:0]   <= in_w[DATA_W-128 +: 64];
            if (m2b_vc[1]) carry_q[127:64] <= in_w[DATA_W-64 +: 64];
        end
    end else begin : g_whole
        // ALIGN <= 16: the header's beats, then the in-beats unchanged
        logic [DATA_W-1:0] m2_in;   // the in-beat, or zeros past the frame
        assign m2_in = m2b_rd ? m2b_word : '0;
        always_ff @(posedge clk) begin
            if (m2b_v) begin
                if (m2b_j < NB_W'(HB)) m3_beat <= DATA_W'(m2b_hdr >> (DATA_W * 32'(m2b_j)));
                else                  m3_beat <= m2_in;
            end
        end
    end

    // R: the record's beat rotated by its first granule, cyclically: granules rl.. go to word
    // w, the ones that wrap to word w + 1; each word to its bank (w's beat index parity)
    logic              r_v;
    logic [DATA_W-1:0] r_beat;
    logic [1:0]        r_we;         // per bank
    logic [1:0][SA_W-2:0] r_a;       // per bank: {queue, slot, beat >> 1}
    logic [1:0][G-1:0] r_en;
    logic              r_fv;
    logic [FL_W-1:0]   r_fl;

    always_ff @(posedge clk) begin
        if (rst) begin
            r_v  <= 1'b0;
            r_fv <= 1'b0;
        end else begin
            r_v  <= m3_v;
            r_fv <= m3_fv;
        end
    end

    always_ff @(posedge clk) begin
        logic [2*DATA_W-1:0] two;
        logic [SA_W-1:0]     sa0;
        logic [SA_W-2:0]     sa1;
        logic [G-1:0]        en0;
        logic [G-1:0]        en1;
        logic                b0;
        two = {m3_beat, m3_beat};
        {sa0, sa1, en0, en1} = m3_sw;
        b0 = sa0[0];
        r_beat <= two[DATA_W - 64 * 32'(m3_rl) +: DATA_W];
        r_a[b0]   <= sa0[SA_W-1:1];
        r_en[b0]  <= en0;
        r_a[!b0]  <= sa1;
        r_en[!b0] <= en1;
        r_we      <= m3_v ? {|(b0 ? en0 : en1), |(b0 ? en1 : en0)} : 2'b00;
        r_fl      <= m3_fl;
    end

    // S: the staging blocks, QUEUES x SB x BURST_BYTES in two banks of the even and odd
    // beats; a flush is queued in the cycle its last bytes are written, so the reader sees them.
    // (the RAMs are instantiated with the reader, below)
    logic             flf_valid;
    logic [FL_W-1:0]  flf_data;
    logic             flf_pop;
    logic             flf_s_ready;

    prefetch_fifo #(
        .WIDTH   (FL_W),
        .DEPTH   (FLD),
        .SLICE_W (64)
    ) u_flf (
        .clk     (clk),
        .rst     (rst),
        .s_data  (r_fl),
        .s_valid (r_fv),
        .s_ready (flf_s_ready),
        .m_data  (flf_data),
        .m_valid (flf_valid),
        .m_ready (flf_pop)
    );

    // ====================================================================================
    // Reader: a flush's beats off the staging blocks into the W FIFO, its AW entry queued
    // ====================================================================================
    logic [QW-1:0]     f_q;
    logic [SBW-1:0]    f_p;
    logic [BBW-1:0]    f_fb;
    logic [BBW-1:0]    f_nm1;        // beats - 1
    logic [LGW-1:0]    f_lo;
    logic [LGW-1:0]    f_hi;
    logic [ADDR_W-1:0] f_addr;
    logic              f_cv;
    logic [31:0]       f_cp;
    logic              f_one;        // a burst of one beat
    assign {f_q, f_p, f_fb, f_nm1, f_lo, f_hi, f_addr, f_cv, f_cp, f_one} = flf_data;

    logic [BBW-1:0]    rd_n_q;       // beats of the head flush read
    logic [BBW-1:0]    rd_b;
    logic              rd_go;
    logic              rd_last;
    logic              rd_nlast_q;   // the beat after the one read last cycle is the flush's last
    logic              rd_n0_q;      // rd_n_q == 0: the head flush's first beat is next
    logic [WD_W:0]     w_alloc_q;    // beats read
    logic [WD_W:0]     w_sent_q;     // beats sent
    logic [WD_W:0]     w_used_q;
    logic              w_room_q;

    assign rd_b    = f_fb + rd_n_q;
    assign rd_go   = flf_valid && w_room_q;
    // The flush FIFO's pop: a flag carried with the flush for its first beat, a register for
    // the others, so the pop does not wait for a compare of the FIFO head's data
    assign rd_last = rd_n0_q ? f_one : rd_nlast_q;
    assign flf_pop = rd_go && rd_last;

    always_ff @(posedge clk) begin
        if (rst) begin
            rd_n_q  <= '0;
            rd_n0_q <= 1'b1;
        end else if (rd_go) begin
            rd_n_q  <= rd_last ? '0 : rd_n_q + 1'b1;
            rd_n0_q <= rd_last;
        end
    end

    always_ff @(posedge clk) begin
        if (rd_go) rd_nlast_q <= BBW'(rd_n_q + 1'b1) == f_nm1;
    end

    // R0 the address; R1 the RAM's read; R2 its output register; R3 the bank's word, into
    // the FIFO
    logic              rr1_v;
    logic [1:0][SA_W-2:0] rr1_a;     // per bank (each drives its own block RAMs)
    logic              rr1_bank;
    logic [G-1:0]      rr1_gen;
    logic              rr1_last;     // the flush's last beat
    logic              rr2_v;
    logic [1:0][DATA_W-1:0] rr_word; // R2: per bank, the word read at R0's address
    logic              rr2_bank;
    logic [G-1:0]      rr2_gen;
    logic              rr2_last;
    logic              rr3_v;
    logic              rr3_bank;
    logic [G-1:0]      rr3_gen;
    logic              rr3_last;
    logic              rr4_v;
    logic [DATA_W-1:0] rr4_word;
    logic [KW-1:0]     rr4_strb;
    logic              rr4_last;

    always_ff @(posedge clk) begin
        if (rst) begin
            rr1_v <= 1'b0;
            rr2_v <= 1'b0;
            rr3_v <= 1'b0;
            rr4_v <= 1'b0;
        end else begin
            rr1_v <= rd_go;
            rr2_v <= rr1_v;
            rr3_v <= rr2_v;
            rr4_v <= rr3_v;
        end
    end

    always_ff @(posedge clk) begin
        rr1_bank <= rd_b[0];
        rr1_last <= rd_last;
        for (int g = 0; g < G; g++) begin
            rr1_gen[g] <= (!rd_n0_q || LGW'(g) >= f_lo) && (!rd_last || LGW'(g) <= f_hi);
        end
        rr2_bank <= rr1_bank;
        rr2_gen  <= rr1_gen;
        rr2_last <= rr1_last;
        rr3_bank <= rr2_bank;
        rr3_gen  <= rr2_gen;
        rr3_last <= rr2_last;
        rr4_word <= rr3_bank ? rr_word[1] : rr_word[0];
        for (int b = 0; b < KW; b++) rr4_strb[b] <= rr3_gen[b / 8];
        rr4_last <= rr3_last;
    end

    (* keep *) always_ff @(posedge clk) begin
        for (int k = 0; k < 2; k++) rr1_a[k] <= {f_q, f_p, rd_b[BBW-1:1]};
    end

    // The staging RAMs: one per bank and 8-byte granule (the granules are written apart), each
    // read through its own output register (ram_sdp_reg), so the word leaves the RAM from a
    // register next to it and the bank select has a cycle of its own

    for (genvar b = 0; b < 2; b++) begin : g_stg_bank
        for (genvar g = 0; g < G; g++) begin : g_stg
            ram_sdp_reg #(
                .ADDR_W (SA_W - 1),
                .DATA_W (64)
            ) u_stg (
                .clk   (clk),
                .we    (r_we[b] && r_en[b][g]),
                .waddr (r_a[b]),
                .wdata (r_beat[64*g +: 64]),
                .raddr (rr1_a[b]),
                .rdata (rr_word[b][64*g +: 64])
            );
        end
    end

    // AW entries, pushed with a flush's first beat: {address, len, commit, queue, PROD}
    localparam int AWE_W = ADDR_W + 8 + 1 + QW + 32;
    logic             awe_push;
    logic [AWE_W-1:0] awe_data;
    logic             awf_valid;
    logic [AWE_W-1:0] awf_data;
    logic             awf_pop;
    logic             awf_s_ready;

    always_ff @(posedge clk) begin
        if (rst) begin
            awe_push <= 1'b0;
        end else begin
            awe_push <= rd_go && rd_n0_q;
        end
    end

    // loaded every cycle (read only with awe_push, so it holds the head of the push's cycle
    // before): no enable spans the entry
    always_ff @(posedge clk) begin
        awe_data <= {f_addr, 8'(f_nm1), f_cv, f_q, f_cp};
    end

    prefetch_fifo #(
        .WIDTH   (AWE_W),
        .DEPTH   (WD),
        .SLICE_W (64)
    ) u_awf (
        .clk     (clk),
        .rst     (rst),
        .s_data  (awe_data),
        .s_valid (awe_push),
        .s_ready (awf_s_ready),
        .m_data  (awf_data),
        .m_valid (awf_valid),
        .m_ready (awf_pop)
    );

    // Pending flushes per (slot, queue): +1 when P decides one, -1 a cycle after the reader
    // has issued its last read (the pop and its queue and slot registered first, so the pop's
    // logic drives three registers, not the 8 x QUEUES decrements spread over the die; a
    // block counted pending a cycle longer only holds M0 back); M0 opens a block only when
    // the one before in its slot is read out
    logic [SB-1:0][QUEUES-1:0]       pinc_q;
    logic [SB-1:0][QUEUES-1:0]       pdec_q;
    logic [SB-1:0][QUEUES-1:0][PC_W-1:0] pend_q;
    logic                            pop_v_q;
    logic [QW-1:0]                   pop_q_q;
    logic [SBW-1:0]                  pop_p_q;

    always_ff @(posedge clk) begin
        if (rst) pop_v_q <= 1'b0;
        else     pop_v_q <= flf_pop;
    end

    always_ff @(posedge clk) begin
        pop_q_q <= f_q;
        pop_p_q <= f_p;
    end

    always_ff @(posedge clk) begin
        logic [QW-1:0] iq;
        logic [SBW-1:0] ip;
        logic [PC_W-1:0] pn;
        {iq, ip} = {m2_fl[FR_W-1 -: QW], m2_fl[33 +: SBW]};   // the queue; the block's slot
        if (rst) begin
            pinc_q    <= '0;
            pdec_q    <= '0;
            pend_nz_q <= '0;
            for (int p = 0; p < SB; p++) for (int q = 0; q < QUEUES; q++) pend_q[p][q] <= '0;
        end else begin
            for (int p = 0; p < SB; p++) begin
                for (int q = 0; q < QUEUES; q++) begin
                    pinc_q[p][q] <= m2_fv && iq == QW'(q) && ip == SBW'(p);
                    pdec_q[p][q] <= pop_v_q && pop_q_q == QW'(q) && pop_p_q == SBW'(p);
                    pn = pend_q[p][q] + PC_W'(pinc_q[p][q]) - PC_W'(pdec_q[p][q]);
                    pend_q[p][q]    <= pn;
                    pend_nz_q[p][q] <= pn != '0;
                end
            end
        end
    end

    // Flush FIFO credits: taken at M0 by an op that may flush, given back when P decides
    // no flush (a timeout already met) or the reader pops it. The count is kept a cycle late
    // and stepped by the moves registered (the reader's pop is pop_v_q), so the pop drives
    // registers and no adder; the room test of the count now is a select, by those moves, of
    // flags registered from the late count's next value
    logic                 fl_none_q;   // P decided no flush for a timeout op
    logic                 fl_none2_q;  // fl_none_q a cycle later
    logic                 fl_take_q;   // a credit was taken last cycle
    logic [3:0]           fl_ok_q;     // [i]: fl_used_q + i - 2 <= FLD - 4
    logic [6:0]           fl_le;       // [j]: fl_used_q <= FLD - j (the compares of the late count)
    logic [$clog2(FLD):0] fl_cur;      // the credits taken now
    logic [1:0]           fl_i;        // 2 + this cycle's step of the count

    assign fl_cur = fl_used_q + ($clog2(FLD)+1)'(fl_take_q)
                  - ($clog2(FLD)+1)'(fl_none2_q) - ($clog2(FLD)+1)'(pop_v_q);
    assign fl_i   = 2'(3'd2 + 3'(fl_take_q) - 3'(fl_none2_q) - 3'(pop_v_q));
    assign fl_ok  = fl_ok_q[fl_i];
    for (genvar j = 0; j < 7; j++) begin : g_fl_le
        assign fl_le[j] = 32'(fl_used_q) <= FLD - j;
    end

    always_ff @(posedge clk) begin
        if (rst) begin
            fl_used_q  <= '0;
            fl_room_q  <= 1'b0;
            fl_none_q  <= 1'b0;
            fl_none2_q <= 1'b0;
            fl_take_q  <= 1'b0;
            fl_ok_q    <= '1;
        end else begin
            fl_none_q  <= m1_to && !p_cur[TS_W-1];
            fl_none2_q <= fl_none_q;
            fl_take_q  <= (m_go && m_bend) || to_take;
            fl_used_q  <= fl_cur;
            // fl_cur + i - 2 <= FLD - 4 is fl_used_q <= FLD - (fl_i + i): the late count's
            // compares with constants selected by its step, with no adder before them
            for (int i = 0; i < 4; i++) fl_ok_q[i] <= fl_le[32'(fl_i) + i];
            fl_room_q  <= fl_ok;
        end
    end

    // The W data FIFO: {data, strobes, the burst's last beat}
    logic              wdf_valid;
    logic [DATA_W+KW:0] wdf_data;
    logic [DATA_W-1:0] wdf_word;
    logic [KW-1:0]     wdf_strb;
    logic              wdf_last;
    logic              wdf_pop;
    logic              wdf_s_ready;

    sync_fifo #(
        .WIDTH  (DATA_W + KW + 1),
        .DEPTH  (WD),
        .BYPASS (1'b0)
    ) u_wdf (
        .clk     (clk),
        .rst     (rst),
        .s_data  ({rr4_word, rr4_strb, rr4_last}),
        .s_valid (rr4_v),
        .s_ready (wdf_s_ready),
        .m_data  (wdf_data),
        .m_valid (wdf_valid),
        .m_ready (wdf_pop)
    );
    assign {wdf_word, wdf_strb, wdf_last} = wdf_data;

    always_ff @(posedge clk) begin
        if (rst) begin
            w_alloc_q <= '0;
            w_sent_q  <= '0;
            w_used_q  <= '0;
            w_room_q  <= 1'b0;
        end else begin
            if (rd_go)   w_alloc_q <= w_alloc_q + 1'b1;
            if (wdf_pop) w_sent_q  <= w_sent_q + 1'b1;
            w_used_q <= w_alloc_q - w_sent_q;
            w_room_q <= w_used_q <= (WD_W+1)'(WD - 10);
        end
    end

    // The buffer's free pointer: the read pointer two cycles late (a slot is free once read)
    logic [BP_W:0] rp_d1_q;
    always_ff @(posedge clk) begin
        if (rst) begin
            rp_d1_q <= '0;
            rpf_q   <= '0;
        end else begin
            rp_d1_q <= rp_q;
            rpf_q   <= rp_d1_q;
        end
    end

    logic pipe_busy_q;   // an op between M1 and the reader's FIFO
    always_ff @(posedge clk) begin
        if (rst) pipe_busy_q <= 1'b0;
        else     pipe_busy_q <= m1_v || m1_to || m2_v || m2_fv || m2b_v || m2b_fv || m3_v
                                || m3_fv || r_v || r_fv || flf_valid || rr1_v || rr2_v || rr3_v
                                || rr4_v;
    end

    // ====================================================================================
    // Producer write-backs: dirty queues, one picked at a time (round robin)
    // ====================================================================================
    logic [QUEUES-1:0] dirty_q;
    logic              wbp_v_q;       // a queue picked (W0), one-hot
    logic [QUEUES-1:0] wbp_oh_q;
    logic [2:0][QUEUES-1:0] wbp_ohc_q;   // copies (kept apart): W1's three 32-bit reads
    logic [QUEUES-1:0] above_q;       // the queues after the one picked last
    logic              wbr_v_q;       // the write-back request (W1)
    logic [ADDR_W-1:0] wbr_addr_q;
    logic [31:0]       wbr_val_q;
    logic              wb_take;       // the AW arbiter takes the request
    logic              b_commit;      // a B commits a queue's PROD
    logic [QW-1:0]     b_cq;
    logic [31:0]       b_cp;

    // Round robin in two registered steps: WA the candidates (the dirty queues after the last
    // picked, else every dirty one); WB the lowest of them as x & -x (a carry chain, no
    // priority mux chain), cleared from dirty_q (a commit meanwhile sets it again; W1 reads
    // the PROD of its own cycle, so the write-back carries the newest value)
    logic              cand_v_q;
    logic [QUEUES-1:0] cand_q;
    logic [QUEUES-1:0] pick_oh;
    logic              pick_go;
    logic              cand_go;

    assign cand_go = !cand_v_q && !wbp_v_q && !wbr_v_q && |dirty_q;
    assign pick_oh = cand_q & (~cand_q + 1'b1);
    assign pick_go = cand_v_q;

    always_ff @(posedge clk) begin
        if (rst) begin
            cand_v_q <= 1'b0;
        end else begin
            cand_v_q <= cand_go;
        end
    end

    always_ff @(posedge clk) begin
        if (cand_go) cand_q <= (|(dirty_q & above_q)) ? (dirty_q & above_q) : dirty_q;
    end

    always_ff @(posedge clk) begin
        if (rst) begin
            dirty_q <= '0;
            wbp_v_q <= 1'b0;
            wbr_v_q <= 1'b0;
            above_q <= '0;
        end else begin
            logic [QUEUES-1:0] d;
            d = dirty_q;
            if (pick_go) d = d & ~pick_oh;
            for (int q = 0; q < QUEUES; q++) begin
                if (b_commit && b_cq == QW'(q)) d[q] = 1'b1;
            end
            dirty_q <= d;
            wbp_v_q <= pick_go;
            if (wbp_v_q) above_q <= ~(wbp_oh_q | (wbp_oh_q - 1'b1));
            if (wbp_v_q) wbr_v_q <= 1'b1;
            else if (wb_take) wbr_v_q <= 1'b0;
        end
    end

    always_ff @(posedge clk) begin
        if (pick_go) wbp_oh_q <= pick_oh;
    end

    (* keep *) always_ff @(posedge clk) begin
        for (int k = 0; k < 3; k++) if (pick_go) wbp_ohc_q[k] <= pick_oh;
    end

    // W1: the picked queue's address and PROD (an AND-OR over the one-hot)
    always_ff @(posedge clk) begin
        if (wbp_v_q) begin
            logic [ADDR_W-3:0] a;
            logic [31:0] v;
            logic [QUEUES-1:0][31:0] wlo, whi;
            for (int q = 0; q < QUEUES; q++) begin
                wlo[q] = 32'(q_wb[q]);
                whi[q] = 32'(64'(q_wb[q]) >> 32);
            end
            a = (ADDR_W-2)'({rd_pick(wbp_ohc_q[1], whi), rd_pick(wbp_ohc_q[0], wlo)});
            v = rd_pick(wbp_ohc_q[2], q_cprod);
            wbr_addr_q <= {a, 2'b00};
            wbr_val_q  <= v;
        end
    end

    // ====================================================================================
    // AW: data bursts and write-backs into the output register
    // ====================================================================================
    localparam int WC_W = 1 + LOG_KW + 32;   // kind (1: write-back), lane, value
    localparam int BE_W = 1 + QW + 32;           // commit, queue, PROD

    logic             wcf_s_ready;
    logic             wcf_push;
    logic [WC_W-1:0]  wcf_in;
    logic             wcf_valid;
    logic [WC_W-1:0]  wcf_data;
    logic             wcf_pop;
    logic             bf_s_ready;
    logic [BE_W-1:0]  bf_in;
    logic             bf_valid;
    logic [BE_W-1:0]  bf_data;
    logic             bf_pop;

    logic             aw_v_q;
    logic [ADDR_W-1:0] aw_addr_q;
    logic [7:0]       aw_len_q;
    logic             aw_rdy_q;      // the slice can take an AW this cycle
    logic             aw_tv_q;       // the spare holds one
    logic [ADDR_W+7:0] aw_t_q;       // data: the spare
    logic             aw_in_v;
    logic [ADDR_W+7:0] aw_in;
    logic             aw_out_take;
    // Writes in flight (taken by the arbiter, B not back): a credit count, so the arbiter
    // sees a registered flag and its choice reaches the FIFOs a cycle later, from registers
    logic [$clog2(MAX_OUTSTANDING):0] wr_out_q;
    logic             wr_room_q;
    logic             wq_push_q;     // the W-command and B FIFOs' push, registered
    logic [WC_W-1:0]  wcf_in_q;
    logic [BE_W-1:0]  bf_in_q;
    logic             wb_due_q;      // WB_GAP cycles since the last write-back: it goes first
    logic             wb_first_q;    // wbr_v_q && wb_due_q: a write-back waits and goes first
    logic [10:0]      wb_gap_q;
    logic             d_idle_q;      // no record in the mover nor a beat in the W FIFO
    logic             aw_load;
    logic             aw_can;
    logic             take_data;
    logic             aw_sel_d;      // a take would be a data burst's

    logic [ADDR_W-1:0] awf_addr;
    logic [7:0]        awf_len;
    logic              awf_cv;
    logic [QW-1:0]     awf_cq;
    logic [31:0]       awf_cp;
    assign {awf_addr, awf_len, awf_cv, awf_cq, awf_cp} = awf_data;

    // aw_load: the AW slice (output register and a spare) has room, a register: AWREADY
    // reaches only the slice
    assign aw_load   = aw_rdy_q;
    assign aw_can    = aw_load && wr_room_q;
    assign take_data = aw_can && awf_valid && !wb_first_q;
    assign wb_take   = aw_can && wbr_v_q && !take_data && (wb_due_q || d_idle_q);
    assign awf_pop   = take_data;
    assign wcf_push  = take_data || wb_take;
    // The entry taken, if any: a burst whenever one is offered and no write-back is due (the
    // selects need not wait for the slice's room; without a take nothing is pushed)
    assign aw_sel_d  = awf_valid && !wb_first_q;
    assign wcf_in    = aw_sel_d ? {1'b0, LOG_KW'(0), 32'd0}
                                : {1'b1, wbr_addr_q[LOG_KW-1:0], wbr_val_q};
    assign bf_in     = aw_sel_d ? {awf_cv, awf_cq, awf_cp} : {1'b0, QW'(0), 32'd0};

    always_ff @(posedge clk) begin
        if (rst) begin
            aw_v_q   <= 1'b0;
            aw_tv_q  <= 1'b0;
            aw_rdy_q <= 1'b0;
            wb_due_q <= 1'b1;
            wb_first_q <= 1'b0;
            wb_gap_q <= '0;
            d_idle_q <= 1'b0;
        end else begin
            d_idle_q <= !m_v_q && !cmd_valid && !pipe_busy_q && !awf_valid && w_used_q == '0;
            if (aw_out_take) begin
                aw_v_q  <= aw_tv_q || aw_in_v;
                aw_tv_q <= 1'b0;
            end else if (aw_in_v) begin
                aw_tv_q <= 1'b1;
            end
            aw_rdy_q <= aw_out_take ? 1'b1 : !(aw_tv_q || aw_in_v);
            if (wb_take) begin
                wb_gap_q <= 11'(WB_GAP - 2);
                wb_due_q <= 1'b0;
            end else if (wb_gap_q != '0) begin
                wb_gap_q <= wb_gap_q - 1'b1;
            end else begin
                wb_due_q <= 1'b1;
            end
            // wbr_v_q and wb_due_q as they are next cycle (a take clears both; a request is
            // made, wbp_v_q, only while none waits), so the data burst's take, which pops
            // the AW FIFO, reads one register for them
            wb_first_q <= !wb_take && (wbp_v_q || wbr_v_q) && (wb_due_q || wb_gap_q == '0);
        end
    end

    assign aw_in_v     = take_data || wb_take;

    always_ff @(posedge clk) begin
        if (rst) begin
            wr_out_q  <= '0;
            wr_room_q <= 1'b0;
            wq_push_q <= 1'b0;
        end else begin
            // counted from the take registered (wq_push_q), so the take's logic drives one
            // register, not the count's adder
            wr_out_q  <= wr_out_q + ($clog2(MAX_OUTSTANDING)+1)'(wq_push_q)
                                  - ($clog2(MAX_OUTSTANDING)+1)'(bf_pop);
            // room for one more: the count lags two cycles, and one may be taken meanwhile
            wr_room_q <= 32'(wr_out_q) <= MAX_OUTSTANDING - 4;
            wq_push_q <= aw_in_v;
        end
    end

    always_ff @(posedge clk) begin
        wcf_in_q <= wcf_in;
        bf_in_q  <= bf_in;
    end
    assign aw_in       = aw_sel_d ? {awf_addr, awf_len}
                                  : {wbr_addr_q[ADDR_W-1:LOG_KW], LOG_KW'(0), 8'd0};
    assign aw_out_take = !aw_v_q || m_axi_awready;

    always_ff @(posedge clk) begin
        if (aw_out_take) begin
            {aw_addr_q, aw_len_q} <= aw_tv_q ? aw_t_q : aw_in;
        end
        // the spare takes the input whenever it is empty (an entry arrives only then: aw_rdy_q)
        // and is marked full by aw_tv_q only when the entry did not go straight out
        if (!aw_tv_q) aw_t_q <= aw_in;
    end

    assign m_axi_awid    = 1'b0;
    assign m_axi_awaddr  = aw_addr_q;
    assign m_axi_awlen   = aw_len_q;
    assign m_axi_awsize  = 3'(LOG_KW);
    assign m_axi_awburst = 2'b01;        // INCR
    assign m_axi_awcache = 4'b0011;      // normal, bufferable
    assign m_axi_awprot  = 3'b000;
    assign m_axi_awvalid = aw_v_q;

    sync_fifo #(
        .WIDTH  (WC_W),
        .DEPTH  (MAX_OUTSTANDING),
        .BYPASS (1'b0)
    ) u_wcf (
        .clk     (clk),
        .rst     (rst),
        .s_data  (wcf_in_q),
        .s_valid (wq_push_q),
        .s_ready (wcf_s_ready),
        .m_data  (wcf_data),
        .m_valid (wcf_valid),
        .m_ready (wcf_pop)
    );

    sync_fifo #(
        .WIDTH  (BE_W),
        .DEPTH  (MAX_OUTSTANDING),
        .BYPASS (1'b0)
    ) u_bf (
        .clk     (clk),
        .rst     (rst),
        .s_data  (bf_in_q),
        .s_valid (wq_push_q),
        .s_ready (bf_s_ready),
        .m_data  (bf_data),
        .m_valid (bf_valid),
        .m_ready (bf_pop)
    );

    // ====================================================================================
    // W: the bursts' beats from the W FIFO, a write-back's one beat
    // ====================================================================================
    logic              wc_wb;
    logic [LOG_KW-1:0] wc_lane;
    logic [31:0]       wc_val;
    assign {wc_wb, wc_lane, wc_val} = wcf_data;

    logic              w_v_q;
    logic [DATA_W-1:0] w_data_q;
    logic [KEEP_W-1:0] w_strb_q;
    logic              w_last_q;
    logic              w_load;
    logic              w_data_go;
    logic              w_wb_go;
    logic              w_rdy_q;      // the W slice can take a beat (a register)
    logic              w_tv_q;       // its spare holds one
    logic [DATA_W+KEEP_W:0] w_t_q;   // data: the spare {data, strb, last}
    logic              w_in_v;
    logic [DATA_W+KEEP_W:0] w_in;
    logic              w_out_take;

    assign w_load    = w_rdy_q;
    assign w_data_go = w_load && wcf_valid && !wc_wb && wdf_valid;
    assign w_wb_go   = w_load && wcf_valid && wc_wb;
    assign wdf_pop   = w_data_go;
    // a burst's last beat is marked in the W data FIFO by the reader (no beat count here:
    // the W command's pop stays off the FIFO heads' data)
    assign wcf_pop   = w_wb_go || (w_data_go && wdf_last);

    always_ff @(posedge clk) begin
        if (rst) begin
            w_v_q   <= 1'b0;
            w_tv_q  <= 1'b0;
            w_rdy_q <= 1'b0;
        end else begin
            if (w_out_take) begin
                w_v_q  <= w_tv_q || w_in_v;
                w_tv_q <= 1'b0;
            end else if (w_in_v) begin
                w_tv_q <= 1'b1;
            end
            w_rdy_q <= w_out_take ? 1'b1 : !(w_tv_q || w_in_v);
        end
    end

    assign w_in_v     = w_data_go || w_wb_go;
    // selected by the W command's kind alone: a beat is taken only when it agrees
    assign w_in       = !wc_wb ? {wdf_word, wdf_strb, wdf_last}
                               : {{(DATA_W / 32){wc_val}}, KEEP_W'(4'hF) << wc_lane, 1'b1};
    assign w_out_take = !w_v_q || m_axi_wready;

    always_ff @(posedge clk) begin
        if (w_out_take) begin
            {w_data_q, w_strb_q, w_last_q} <= w_tv_q ? w_t_q : w_in;
        end
        // as the AW spare: loaded whenever empty (a beat arrives only then: w_rdy_q)
        if (!w_tv_q) w_t_q <= w_in;
    end

    assign m_axi_wdata  = w_data_q;
    assign m_axi_wstrb  = w_strb_q;
    assign m_axi_wlast  = w_last_q;
    assign m_axi_wvalid = w_v_q;

    // ====================================================================================
    // B: in order; a burst's commit makes its queue's PROD visible (write-back)
    // ====================================================================================
    logic          bf_cv;
    logic [QW-1:0] bf_cq;
    logic [31:0]   bf_cp;
    assign {bf_cv, bf_cq, bf_cp} = bf_data;

    assign m_axi_bready = 1'b1;
    assign bf_pop       = m_axi_bvalid;
    assign b_commit     = m_axi_bvalid && bf_cv;
    assign b_cq         = bf_cq;
    assign b_cp         = bf_cp;

    always_ff @(posedge clk) begin
        if (rst) begin
            for (int q = 0; q < QUEUES; q++) q_cprod[q] <= '0;
        end else if (b_commit) begin
            q_cprod[b_cq] <= b_cp;
        end
    end

    // ====================================================================================
    // Counters
    // ====================================================================================
    logic [QUEUES-1:0] hit_ok;
    logic [QUEUES-1:0] hit_full;
    logic [QUEUES-1:0] hit_off;
    logic [QUEUES-1:0] hit_buf;
    logic [15:0]       cnt_len_q;

    always_ff @(posedge clk) begin
        if (rst) begin
            hit_ok   <= '0;
            hit_full <= '0;
            hit_off  <= '0;
            hit_buf  <= '0;
        end else begin
            for (int q = 0; q < QUEUES; q++) begin
                hit_ok[q]   <= d3_v && d3_ok && d3_q == QW'(q);
                hit_full[q] <= d3_v && !d3_ok && !d3_off && d3_q == QW'(q);
                hit_off[q]  <= d3_v && d3_off && d3_q == QW'(q);
                hit_buf[q]  <= e2_v && e2_drop && e2_q == QW'(q);
            end
        end
    end

    always_ff @(posedge clk) begin
        cnt_len_q <= d3_len;
    end

    always_ff @(posedge clk) begin
        if (rst) begin
            for (int q = 0; q < QUEUES; q++) begin
                n_frames[q] <= '0;
                n_bytes[q]  <= '0;
                n_full[q]   <= '0;
                n_off[q]    <= '0;
                n_buf[q]    <= '0;
            end
            n_berr   <= '0;
            n_wb     <= '0;
            n_bursts <= '0;
        end else begin
            for (int q = 0; q < QUEUES; q++) begin
                if (hit_ok[q]) begin
                    n_frames[q] <= n_frames[q] + 32'd1;
                    n_bytes[q]  <= n_bytes[q] + 32'(cnt_len_q);
                end
                if (hit_full[q]) n_full[q] <= n_full[q] + 32'd1;
                if (hit_off[q])  n_off[q]  <= n_off[q] + 32'd1;
                if (hit_buf[q])  n_buf[q]  <= n_buf[q] + 32'd1;
            end
            if (m_axi_bvalid && m_axi_bresp != 2'b00) n_berr <= n_berr + 32'd1;
            // counted from the take registered, with its kind (wcf_in_q's top bit: a write-back)
            if (wq_push_q && wcf_in_q[WC_W-1])  n_wb     <= n_wb + 32'd1;
            if (wq_push_q && !wcf_in_q[WC_W-1]) n_bursts <= n_bursts + 32'd1;
        end
    end

    // ====================================================================================
    // AXI4-Lite registers
    // ====================================================================================
    logic           wr_req;
    logic [RAW-1:0] wr_addr;
    logic [31:0]    wr_data;
    logic [3:0]     wr_strb;
    logic           wr_err;
    logic           rd_req;
    logic [RAW-1:0] rd_addr;
    logic           rd_ack;
    logic [31:0]    rd_data;
    logic           rd_err;

    axil_reg_if #(
        .ADDR_W (AXIL_ADDR_W)
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
        .wr_err         (wr_err),
        .rd_req         (rd_req),
        .rd_addr        (rd_addr),
        .rd_ack         (rd_ack),
        .rd_data        (rd_data),
        .rd_err         (rd_err)
    );

    // An address: global (q_sel = 0) or queue q's register r (offset 0x100 + 0x40 q + 4 r)
    // 0x40 <= wa < 0x40 + 16 QUEUES, written as a match of wa[RAW-1:4] on each queue's slot
    // so that it maps to a few LUTs on the address bits, not to two 32-bit comparisons
    function automatic logic is_queue(input logic [RAW-1:0] wa);
        logic hit;
        hit = 1'b0;
        for (int q = 0; q < QUEUES; q++) hit = hit || 32'(wa) >> 4 == 32'(4 + q);
        return hit;
    endfunction
    function automatic logic [QW-1:0] qidx(input logic [RAW-1:0] wa);
        return QW'((32'(wa) - 32'h40) >> 4);
    endfunction
    // qidx(wa) == q from wa[QW+3:4] (ws) alone: a match, no subtraction ((wa >> 4) - 4 and q
    // agree in their low QW bits when ws == q + 4)
    function automatic logic is_qidx(input logic [QW-1:0] ws, input int q);
        return ws == QW'(4 + q);
    endfunction
    function automatic logic [31:0] qreg(input logic [3:0] wr);
        return DMA_REG_Q_CTRL + 4 * 32'(wr);
    endfunction

    // The writable queue registers' word offsets in wq_r's order (CTRL .. CONS)
    localparam logic [5:0][3:0] WR_QREGS = {
        4'((DMA_REG_Q_CONS - DMA_REG_Q_CTRL) / 4), 4'((DMA_REG_Q_WB_HI - DMA_REG_Q_CTRL) / 4),
        4'((DMA_REG_Q_WB_LO - DMA_REG_Q_CTRL) / 4), 4'((DMA_REG_Q_BASE_HI - DMA_REG_Q_CTRL) / 4),
        4'((DMA_REG_Q_BASE_LO - DMA_REG_Q_CTRL) / 4), 4'd0};
    // wa's register among the writable ones, one-hot (0: none), from wa[3:0] alone
    function automatic logic [5:0] wr_reg(input logic [3:0] wr);
        logic [5:0] r;
        for (int k = 0; k < 6; k++) r[k] = wr == WR_QREGS[k];
        return r;
    endfunction
    function automatic logic wr_ok(input logic [RAW-1:0] wa);
        return is_queue(wa) && |wr_reg(wa[3:0]);
    endfunction
    function automatic logic rd_ok(input logic [RAW-1:0] wa);
        logic [31:0] r;
        r = qreg(wa[3:0]);
        if (!is_queue(wa)) begin
            return {wa, 2'b00} == AXIL_ADDR_W'(DMA_REG_INFO)
                || {wa, 2'b00} == AXIL_ADDR_W'(DMA_REG_PARAMS)
                || {wa, 2'b00} == AXIL_ADDR_W'(DMA_REG_CNT_BRESP_ERR)
                || {wa, 2'b00} == AXIL_ADDR_W'(DMA_REG_CNT_WB)
                || {wa, 2'b00} == AXIL_ADDR_W'(DMA_REG_CNT_BURSTS);
        end
        return wr_ok(wa) || r == DMA_REG_Q_PROD || r == DMA_REG_Q_FRAMES || r == DMA_REG_Q_BYTES
            || r == DMA_REG_Q_DROP_FULL || r == DMA_REG_Q_DROP_BUF || r == DMA_REG_Q_DROP_OFF;
    endfunction

    assign wr_err = !wr_ok(wr_addr);

    // Writes: registered (c1), performed at the end of c1; the queue's limit at c2, c3.
    // c0 registers the request, the queue, the register (one-hot) and the data only: the
    // ring size's clamp and decode are taken at c1 from wq_data, so no field of the AXI-Lite
    // data is decoded behind u_axil's W select (w_full_q, with its fan-out)
    logic           wq_v;       // a write request (c1)
    logic           wq_isq;     // data: to the queues' space
    logic [QW-1:0]  wq_q;       // data
    logic [QUEUES-1:0] wq_oh;   // data: wq_q one-hot (the per-queue enables take a register)
    logic [5:0]     wq_r;       // data: which queue register, one-hot (the enables take
                                // registers): CTRL, BASE_LO, BASE_HI, WB_LO, WB_HI, CONS
    logic [31:0]    wq_data;    // data
    logic [3:0]     wq_strb;    // data
    logic [4:0]     wq_ls_c;    // LOG2_SIZE of wq_data clamped to 12..30
    logic [31:0]    wq_sz_c;    // and decoded (1 << it)

    always_ff @(posedge clk) begin
        if (rst) begin
            wq_v <= 1'b0;
        end else begin
            wq_v <= wr_req;
        end
    end

    // A queue register's write is wq_v && wq_isq with its wq_r bit (wq_v, wq_isq and wq_r
    // each a few LUTs on the request and address; wr_err is not needed at c1): a write in
    // the queues' space to no writable register sets no bit of wq_r
    always_ff @(posedge clk) begin
        wq_isq  <= is_queue(wr_addr);
        wq_q    <= qidx(wr_addr);
        for (int q = 0; q < QUEUES; q++) wq_oh[q] <= is_qidx(wr_addr[QW+3:4], q);
        wq_r    <= wr_reg(wr_addr[3:0]);
        wq_data <= wr_data;
        wq_strb <= wr_strb;
    end

    // Each bit a function of the 5 bits of wq_data's LOG2_SIZE alone (a LUT5 from the
    // registers), written as matches on its values: comparisons and a shift keep their own
    // logic levels in the mapping
    always_comb begin
        logic [4:0] v;
        logic       lo;
        logic       hi;
        v  = wq_data[DMA_Q_CTRL_LOG2_SIZE_LSB +: 5];
        lo = 1'b0;
        for (int j = 0; j < 12; j++) lo = lo || v == 5'(j);
        hi = v == 5'd31;
        wq_ls_c = lo ? 5'd12 : hi ? 5'd30 : v;
        for (int i = 0; i < 32; i++) begin
            if (i == 12)     wq_sz_c[i] = lo || v == 5'd12;
            else if (i > 12) wq_sz_c[i] = i == 30 ? hi || v == 5'd30 : v == 5'(i) && !hi;
            else             wq_sz_c[i] = 1'b0;
        end
    end

    always_ff @(posedge clk) begin
        if (rst) begin
            q_en <= '0;
            for (int q = 0; q < QUEUES; q++) begin
                q_lsize[q] <= 5'd12;
                q_sz[q]    <= 32'd4096;
                q_base[q]  <= '0;
                q_wb[q]    <= '0;
                q_cons[q]  <= '0;
            end
        end else if (wq_v && wq_isq) begin
            // byte-lane enables into the queue's registers: no read of the old value
            for (int q = 0; q < QUEUES; q++) begin
                if (wq_oh[q]) begin
                    if (wq_r[0]) begin
                        if (wq_strb[0]) q_en[q] <= wq_data[DMA_Q_CTRL_ENABLE];
                        if (wq_strb[1]) begin
                            q_lsize[q] <= wq_ls_c;
                            q_sz[q]    <= wq_sz_c;
                        end
                    end
                    for (int i = 12; i < 32; i++) begin
                        if (wq_r[1] && wq_strb[i / 8]) q_base[q][i - 12] <= wq_data[i];
                    end
                    for (int i = 32; i < ADDR_W; i++) begin
                        if (wq_r[2] && wq_strb[(i - 32) / 8]) begin
                            q_base[q][i - 12] <= wq_data[i - 32];
                        end
                    end
                    for (int i = 2; i < 32; i++) begin
                        if (wq_r[3] && wq_strb[i / 8]) q_wb[q][i - 2] <= wq_data[i];
                    end
                    for (int i = 32; i < ADDR_W; i++) begin
                        if (wq_r[4] && wq_strb[(i - 32) / 8]) begin
                            q_wb[q][i - 2] <= wq_data[i - 32];
                        end
                    end
                    for (int b = 0; b < 4; b++) begin
                        if (wq_r[5] && wq_strb[b]) q_cons[q][8*b +: 8] <= wq_data[8*b +: 8];
                    end
                end
            end
        end
    end

    (* keep *) always_ff @(posedge clk) begin
        for (int k = 0; k < 2; k++) lim_oh1_q[k] <= wq_oh;
    end


    // The limit after a CONS or CTRL write: cons + size (c2: read, c3: summed, c4: written)
    always_ff @(posedge clk) begin
        if (rst) begin
            lim_v1_q  <= 1'b0;
            lim_v2_q  <= 1'b0;
            lim_v3_q  <= 1'b0;
            lim_oh2_q <= '0;
            lim_oh3_q <= '0;
        end else begin
            lim_v1_q <= wq_v && wq_isq && (wq_r[5] || wq_r[0]);
            lim_v2_q <= lim_v1_q;
            lim_v3_q <= lim_v2_q;
            lim_oh2_q <= lim_v1_q ? lim_oh1_q[0] : '0;
            lim_oh3_q <= lim_oh2_q;
        end
    end

    always_ff @(posedge clk) begin
        lim_q1_q   <= wq_q;
        lim_q2_q   <= lim_q1_q;
        lim_q3_q   <= lim_q2_q;
        if (lim_v2_q) lim_new_q <= lim_cons_q + lim_sz_q;
        lim_cons_q <= rd_pick(lim_oh1_q[0], q_cons);
        lim_sz_q   <= rd_pick(lim_oh1_q[1], q_sz);
    end

    always_ff @(posedge clk) begin
        if (rst) begin
            for (int q = 0; q < QUEUES; q++) q_lim[q] <= 32'd4096;
        end else begin
            for (int q = 0; q < QUEUES; q++) if (lim_oh3_q[q]) q_lim[q] <= lim_new_q;
        end
    end

    // The readable registers in rd_sel2_q's order: the queue's, then the global ones
    localparam logic [11:0][31:0] RD_QREGS = {DMA_REG_Q_DROP_OFF, DMA_REG_Q_DROP_BUF,
        DMA_REG_Q_DROP_FULL, DMA_REG_Q_BYTES, DMA_REG_Q_FRAMES, DMA_REG_Q_PROD, DMA_REG_Q_CONS,
        DMA_REG_Q_WB_HI, DMA_REG_Q_WB_LO, DMA_REG_Q_BASE_HI, DMA_REG_Q_BASE_LO, DMA_REG_Q_CTRL};
    localparam logic [4:0][31:0] RD_GREGS = {DMA_REG_CNT_BURSTS, DMA_REG_CNT_WB,
        DMA_REG_CNT_BRESP_ERR, DMA_REG_PARAMS, DMA_REG_INFO};

    // Reads: c0 address registered; c1 the queue's words; c2 the word; c3 rd_ack
    // c1's per-queue reads are AND-ORs over a one-hot of the queue, registered from the address
    // in RQC copies (one per register read, kept apart), so each select bit drives one
    // register's 32 bits rather than a binary select spread over all of them
    localparam int RQC = 12;
    logic           rd_v1_q;
    logic           rd_v2_q;
    logic           rd_v3_q;
    logic [RAW-1:0] rd_a1_q;
    logic [RQC-1:0][QUEUES-1:0] rd_qoh_q;   // c1: the queue, one-hot, a copy per register
    logic [16:0]    rd_sel2_q;   // c2: which register, one-hot (12 of the queue's, 5 global)
    logic           rd_ok2_q;    // c2: mapped and readable
    logic [31:0]    rq_ctrl;
    logic [31:0]    rq_base_lo;
    logic [31:0]    rq_base_hi;
    logic [31:0]    rq_wb_lo;
    logic [31:0]    rq_wb_hi;
    logic [31:0]    rq_cons;
    logic [31:0]    rq_prod;
    logic [31:0]    rq_frames;
    logic [31:0]    rq_bytes;
    logic [31:0]    rq_full;
    logic [31:0]    rq_buf;
    logic [31:0]    rq_off;
    logic [31:0]    rd_w_q;
    logic           rd_e_q;

    always_ff @(posedge clk) begin
        if (rst) begin
            rd_v1_q <= 1'b0;
            rd_v2_q <= 1'b0;
            rd_v3_q <= 1'b0;
        end else begin
            rd_v1_q <= rd_req;
            rd_v2_q <= rd_v1_q;
            rd_v3_q <= rd_v2_q;
        end
    end

    always_ff @(posedge clk) begin
        logic [QUEUES-1:0][31:0] ctrl, base_lo, base_hi, wb_lo, wb_hi;
        if (rd_req) rd_a1_q <= rd_addr;
        for (int r = 0; r < 12; r++) begin
            rd_sel2_q[r] <= is_queue(rd_a1_q) && qreg(rd_a1_q[3:0]) == RD_QREGS[r];
        end
        for (int r = 0; r < 5; r++) begin
            rd_sel2_q[12 + r] <= !is_queue(rd_a1_q) && {rd_a1_q, 2'b00} == AXIL_ADDR_W'(RD_GREGS[r]);
        end
        rd_ok2_q   <= rd_ok(rd_a1_q);
        for (int q = 0; q < QUEUES; q++) begin
            logic [63:0] base;
            logic [63:0] wb;
            base       = 64'({q_base[q], 12'd0});
            wb         = 64'({q_wb[q], 2'd0});
            ctrl[q]    = {19'd0, q_lsize[q], 7'd0, q_en[q]};
            base_lo[q] = base[31:0];
            base_hi[q] = base[63:32];
            wb_lo[q]   = wb[31:0];
            wb_hi[q]   = wb[63:32];
        end
        rq_ctrl    <= rd_pick(rd_qoh_q[0], ctrl);
        rq_base_lo <= rd_pick(rd_qoh_q[1], base_lo);
        rq_base_hi <= rd_pick(rd_qoh_q[2], base_hi);
        rq_wb_lo   <= rd_pick(rd_qoh_q[3], wb_lo);
        rq_wb_hi   <= rd_pick(rd_qoh_q[4], wb_hi);
        rq_cons    <= rd_pick(rd_qoh_q[5], q_cons);
        rq_prod    <= rd_pick(rd_qoh_q[6], q_cprod);
        rq_frames  <= rd_pick(rd_qoh_q[7], n_frames);
        rq_bytes   <= rd_pick(rd_qoh_q[8], n_bytes);
        rq_full    <= rd_pick(rd_qoh_q[9], n_full);
        rq_buf     <= rd_pick(rd_qoh_q[10], n_buf);
        rq_off     <= rd_pick(rd_qoh_q[11], n_off);
    end

    // The one-hot copies load every cycle (read at c1 only): with no enable they share
    // nothing with rd_a1_q, so synthesis cannot merge them into it
    (* keep *) always_ff @(posedge clk) begin
        for (int k = 0; k < RQC; k++) begin
            for (int q = 0; q < QUEUES; q++) rd_qoh_q[k][q] <= is_qidx(rd_addr[QW+3:4], q);
        end
    end

    // c2: an AND-OR of the registered values by the one-hot select
    always_ff @(posedge clk) begin
        logic [16:0][31:0] v;
        logic [31:0]       w;
        v = {n_bursts, n_wb, n_berr, {16'(BURST_BYTES), 16'(BUF_BYTES / 1024)},
             {8'(QUEUES - 1), 8'(HDR), 8'd3, 8'd1},
             rq_off, rq_buf, rq_full, rq_bytes, rq_frames, rq_prod, rq_cons, rq_wb_hi, rq_wb_lo,
             rq_base_hi, rq_base_lo, rq_ctrl};
        w = '0;
        for (int r = 0; r < 17; r++) w = w | (rd_sel2_q[r] ? v[r] : '0);
        rd_e_q <= !rd_ok2_q;
        rd_w_q <= w;
    end

    assign rd_ack  = rd_v3_q;
    assign rd_data = rd_w_q;
    assign rd_err  = rd_e_q;

    // Unused: the FIFOs' s_ready where credits keep them from filling; the ID of B
    logic unused;
    assign unused = ^{d2_room[30:0], m2b_rd, m2b_j, stq_s_ready, stq_valid, flf_s_ready, m1_sa1[0], wcf_push, wcf_s_ready, bf_s_ready, cmd_s_ready, awf_s_ready, wdf_s_ready, m_axi_bid, bf_valid,
                      m_axi_bresp};

endmodule

`default_nettype wire
